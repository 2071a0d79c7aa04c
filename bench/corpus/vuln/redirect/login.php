<?php
$next = $_GET['next'];
if (check_login()) {
    header('Location: ' . $next); // VULN
    exit;
}
