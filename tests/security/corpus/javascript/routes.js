const express = require("express");
const { execFile, exec } = require("child_process");
const crypto = require("crypto");
const path = require("path");
const fs = require("fs");
const db = require("./db");

const router = express.Router();
const UPLOADS = path.join(__dirname, "uploads");

router.get("/users/:id", requireLogin, async (req, res) => {
  const rows = await db.query("SELECT * FROM users WHERE id = $1", [req.params.id]);
  res.json(rows);
});

router.get("/search", requireLogin, async (req, res) => {
  const rows = await db.query(`SELECT * FROM products WHERE name LIKE '%${req.query.q}%'`);
  res.json(rows);
});

router.get("/hello", (req, res) => {
  res.send(`<h1>Hello ${req.query.name}</h1>`);
});

router.get("/ping", requireLogin, (req, res) => {
  exec("ping -c 1 " + req.query.host, (err, out) => res.send(out));
});

router.get("/ping-safe", requireLogin, (req, res) => {
  execFile("ping", ["-c", "1", req.query.host], (err, out) => res.type("text").send(out));
});

router.get("/files", requireLogin, (req, res) => {
  fs.readFile(path.join(UPLOADS, req.query.name), (err, data) => res.send(data));
});

router.get("/avatar", requireLogin, (req, res) => {
  const name = path.basename(String(req.query.name));
  res.sendFile(name, { root: UPLOADS });
});

function checksum(buf) {
  return crypto.createHash("sha1").update(buf).digest("hex");
}

function fingerprint(buf) {
  return crypto.createHash("sha256").update(buf).digest("hex");
}

function requireLogin(req, res, next) {
  if (!req.session || !req.session.user) return res.status(401).end();
  return next();
}

module.exports = { router, checksum, fingerprint };
