<?php
$q = htmlspecialchars($_GET['q'], ENT_QUOTES, 'UTF-8');
echo "<h2>Results for " . $q . "</h2>";

function comment_html() {
    $body = htmlspecialchars($_POST['comment'], ENT_QUOTES, 'UTF-8');
    print "<div class='comment'>$body</div>";
}
