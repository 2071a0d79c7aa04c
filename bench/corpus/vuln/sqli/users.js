const express = require("express");
const mysql = require("mysql2");
const sqlite = require("better-sqlite3");

const pool = mysql.createPool({ host: "db", user: "app", database: "app" });
const local = sqlite("cache.db");
const router = express.Router();

router.get("/users/:id", (req, res) => {
  const sql = "SELECT * FROM users WHERE id = " + req.params.id;
  pool.query(sql, (err, rows) => res.json(rows)); // VULN
});

router.get("/users", async (req, res) => {
  const { name, order } = req.query;
  const [rows] = await pool.promise().query(`SELECT * FROM users WHERE name = '${name}' ORDER BY ${order}`); // VULN
  res.json(rows);
});

function findCached(key) {
  return local.prepare(`SELECT value FROM cache WHERE key = '${key}'`).get(); // VULN
}

router.delete("/sessions", (req, res) => {
  local.exec("DELETE FROM sessions WHERE user = '" + req.body.user + "'"); // VULN
  res.sendStatus(204);
});

module.exports = { router, findCached };
