<?php
$name = $_GET['file'];
$path = '/var/www/uploads/' . $name;
readfile($path); // VULN

function load_template() {
    $page = $_REQUEST['page'];
    include 'templates/' . $page . '.php'; // VULN
}
