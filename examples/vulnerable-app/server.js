// Storefront API (deliberately vulnerable demo for `aiagent security-audit`).
const express = require("express");
const { exec } = require("child_process");
const crypto = require("crypto");
const db = require("./db");

const app = express();

app.get("/search", (req, res) => {
  db.query(`SELECT * FROM products WHERE name LIKE '%${req.query.q}%'`, (err, rows) => {
    res.json(rows);
  });
});

app.get("/welcome", (req, res) => {
  res.send(`<h1>Welcome back, ${req.query.user}</h1>`);
});

app.post("/tools/convert", (req, res) => {
  exec("convert " + req.body.file + " out.png", () => res.send("ok"));
});

app.get("/session", (req, res) => {
  const sessionToken = Math.random().toString(36).slice(2);
  const digest = crypto.createHash("md5").update(sessionToken).digest("hex");
  res.json({ sessionToken, digest });
});

app.listen(3000);
