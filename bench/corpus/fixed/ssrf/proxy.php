<?php
$ch = curl_init('https://status.example.com/feed');
curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
echo htmlspecialchars(curl_exec($ch));

function fetch_feed() {
    $ch = curl_init();
    curl_setopt($ch, CURLOPT_URL, FEED_BASE . '/feed.xml');
    return curl_exec($ch);
}
