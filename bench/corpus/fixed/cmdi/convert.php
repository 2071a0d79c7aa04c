<?php
$file = escapeshellarg(basename($_POST['file']));
$cmd = "convert uploads/" . $file . " -resize 64x64 thumbs/" . $file;
system($cmd);

function ping() {
    return shell_exec('ping -c 1 localhost');
}
