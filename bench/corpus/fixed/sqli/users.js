const express = require("express");
const mysql = require("mysql2");
const sqlite = require("better-sqlite3");
const axios = require("axios");

const pool = mysql.createPool({ host: "db", user: "app", database: "app" });
const local = sqlite("cache.db");
const router = express.Router();
const ORDERS = { name: "name", created: "created_at" };

router.get("/users/:id", (req, res) => {
  pool.query("SELECT * FROM users WHERE id = ?", [req.params.id], (err, rows) => res.json(rows));
});

router.get("/users", async (req, res) => {
  const { name, order } = req.query;
  const column = ORDERS[order] || "name";
  const [rows] = await pool.promise().query("SELECT * FROM users WHERE name = ? ORDER BY ??", [name, column]);
  res.json(rows);
});

function findCached(key) {
  return local.prepare("SELECT value FROM cache WHERE key = ?").get(key);
}

async function profile(base, user) {
  const { data } = await axios.get(base + "/profiles/" + encodeURIComponent(user));
  return local.prepare("SELECT 1").get() && data;
}

router.delete("/sessions", (req, res) => {
  local.prepare("DELETE FROM sessions WHERE user = ?").run(req.body.user);
  const found = /^session-(\d+)$/.exec(req.body.user);
  res.sendStatus(found ? 204 : 400);
});

module.exports = { router, findCached, profile };
