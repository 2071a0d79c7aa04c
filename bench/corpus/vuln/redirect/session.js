const express = require("express");
const app = express();

app.get("/login/callback", (req, res) => {
  const returnTo = req.query.returnTo || "/";
  res.redirect(returnTo); // VULN
});

function afterLogin() {
  const next = new URLSearchParams(window.location.search).get("next");
  window.location.href = next; // VULN
}

module.exports = { app, afterLogin };
