<?php
$url = $_GET['url'];
$ch = curl_init($url); // VULN
curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
echo htmlspecialchars(curl_exec($ch));

function fetch_feed() {
    $ch = curl_init();
    $feed = 'http://' . $_POST['host'] . '/feed.xml';
    curl_setopt($ch, CURLOPT_URL, $feed); // VULN
    return curl_exec($ch);
}
