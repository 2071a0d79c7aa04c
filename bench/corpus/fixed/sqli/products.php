<?php
function find_products(mysqli $conn) {
    $stmt = mysqli_prepare($conn, "SELECT id, name FROM products WHERE category = ?");
    mysqli_stmt_bind_param($stmt, "s", $_GET['category']);
    mysqli_stmt_execute($stmt);
    return mysqli_stmt_get_result($stmt);
}

class ProductRepository {
    public function __construct(private PDO $pdo) {}

    public function search(string $term) {
        $stmt = $this->pdo->prepare("SELECT * FROM products WHERE name LIKE ?");
        $stmt->execute(['%' . $term . '%']);
        return $stmt;
    }
}
