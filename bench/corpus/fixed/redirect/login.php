<?php
if (check_login()) {
    header('Location: /dashboard');
    exit;
}
