<?php
$q = $_GET['q'];
echo "<h2>Results for " . $q . "</h2>"; // VULN

function comment_html() {
    $body = $_POST['comment'];
    print "<div class='comment'>$body</div>"; // VULN
}
