<?php
function find_products(mysqli $conn) {
    $category = $_GET['category'];
    $sql = "SELECT id, name FROM products WHERE category = '$category'";
    $result = mysqli_query($conn, $sql); // VULN
    return mysqli_fetch_all($result);
}

class ProductRepository {
    public function __construct(private PDO $pdo) {}

    public function search(string $term) {
        $q = "SELECT * FROM products WHERE name LIKE '%" . $term . "%'";
        return $this->pdo->query($q); // VULN
    }
}
