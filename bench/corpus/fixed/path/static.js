const express = require("express");
const fs = require("fs");
const path = require("path");
const app = express();
const ROOT = path.join(__dirname, "public");

app.get("/files", (req, res) => {
  res.sendFile(path.basename(req.query.name), { root: ROOT });
});

app.get("/report/:id", (req, res) => {
  const id = Number.parseInt(req.params.id, 10);
  const data = fs.readFileSync(`reports/${id}.csv`);
  res.type("csv").send(data);
});

app.post("/notes", (req, res) => {
  const name = path.basename(req.body.title);
  fs.writeFile(path.join("notes", name + ".txt"), req.body.text, () => res.sendStatus(201));
});

function loadConfig(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

module.exports = { loadConfig };
