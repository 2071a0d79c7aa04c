const express = require("express");
const ejs = require("ejs");
const pug = require("pug");
const app = express();

app.get("/card", (req, res) => {
  res.send(ejs.render("<h2>" + req.query.title + "</h2>")); // VULN
});

app.post("/template", (req, res) => {
  const fn = pug.compile(req.body.source); // VULN
  res.send(fn({}));
});
