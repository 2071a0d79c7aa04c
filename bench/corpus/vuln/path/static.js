const express = require("express");
const fs = require("fs");
const path = require("path");
const app = express();

app.get("/files", (req, res) => {
  const file = path.join(__dirname, "public", req.query.name);
  res.sendFile(file); // VULN
});

app.get("/report/:id", (req, res) => {
  const data = fs.readFileSync("reports/" + req.params.id + ".csv"); // VULN
  res.type("csv").send(data);
});

app.post("/notes", (req, res) => {
  fs.writeFile(`notes/${req.body.title}.txt`, req.body.text, () => res.sendStatus(201)); // VULN
});
