<?php
$name = basename($_GET['file']);
$path = '/var/www/uploads/' . $name;
readfile($path);

function load_template() {
    $pages = ['home' => 'home.php', 'about' => 'about.php'];
    include 'templates/' . ($pages[$_REQUEST['page']] ?? 'home.php');
}
