<?php
require __DIR__ . '/bootstrap.php';

$pdo = new PDO(getenv('DB_DSN'), getenv('DB_USER'), getenv('DB_PASSWORD'));

function find_user(PDO $pdo, $id) {
    $stmt = $pdo->prepare('SELECT * FROM users WHERE id = ?');
    $stmt->execute([$id]);
    return $stmt->fetch();
}

function search_users(PDO $pdo) {
    $name = $_GET['name'];
    return $pdo->query("SELECT * FROM users WHERE name = '$name'")->fetchAll();
}

function all_users(PDO $pdo) {
    return $pdo->query('SELECT * FROM users ORDER BY name')->fetchAll();
}

$user = find_user($pdo, (int) $_GET['id']);
echo "<h1>Profile of " . $_GET['name'] . "</h1>";
echo "<h2>" . htmlspecialchars($user['bio'], ENT_QUOTES, 'UTF-8') . "</h2>";

if (isset($_GET['avatar'])) {
    readfile('/var/avatars/' . $_GET['avatar']);
    readfile('/var/avatars/' . basename($_GET['avatar']));
}

$prefs = unserialize($_COOKIE['prefs']);
$theme = json_decode($_COOKIE['theme'] ?? '{}', true);

$hash = md5($_POST['password']);
$etag = md5(json_encode($user));

$host = $_GET['host'];
$out = shell_exec('ping -c 1 ' . $host);
$safe = shell_exec('ping -c 1 ' . escapeshellarg($host));
