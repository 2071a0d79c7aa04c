const { exec, execSync } = require("child_process");
const cp = require("child_process");
const express = require("express");
const app = express();

app.post("/convert", (req, res) => {
  const { file, format } = req.body;
  exec(`convert ${file} out.${format}`, (err) => res.send(err ? "fail" : "ok")); // VULN
});

app.get("/whois", (req, res) => {
  const out = execSync("whois " + req.query.domain); // VULN
  res.type("text").send(out);
});

function gitLog(ref) {
  return cp.execSync(`git log --oneline ${ref}`).toString(); // VULN
}

module.exports = { app, gitLog };
