<?php
$file = $_POST['file'];
$cmd = "convert uploads/" . $file . " -resize 64x64 thumbs/" . $file;
system($cmd); // VULN

function ping() {
    $host = $_GET['host'];
    return shell_exec("ping -c 1 $host"); // VULN
}
