const express = require("express");
const app = express();

app.get("/greet", (req, res) => {
  res.send("<h1>Hello " + req.query.name + "</h1>"); // VULN
});

function showError(message) {
  document.getElementById("error").innerHTML = "<b>" + message + "</b>"; // VULN
}

function renderHash() {
  const tag = decodeURIComponent(location.hash.slice(1));
  document.querySelector("#tag").insertAdjacentHTML("beforeend", `<span>${tag}</span>`); // VULN
}

module.exports = { app, showError, renderHash };
