const express = require("express");
const app = express();
const PAGES = { home: "/", settings: "/settings" };

app.get("/login/callback", (req, res) => {
  res.redirect(PAGES[req.query.page] || "/");
});

function afterLogin() {
  window.location.href = "/dashboard";
}

module.exports = { app, afterLogin };
