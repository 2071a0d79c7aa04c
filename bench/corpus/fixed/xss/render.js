const express = require("express");
const escapeHtml = require("escape-html");
const app = express();

app.get("/greet", (req, res) => {
  res.send("<h1>Hello " + escapeHtml(req.query.name) + "</h1>");
});

function showError(message) {
  document.getElementById("error").textContent = message;
}

function renderHash() {
  const span = document.createElement("span");
  span.textContent = decodeURIComponent(location.hash.slice(1));
  document.querySelector("#tag").appendChild(span);
  document.querySelector("#count").innerHTML = "<b>1</b>";
}

module.exports = { app, showError, renderHash };
