const { execFile, execFileSync } = require("child_process");
const express = require("express");
const app = express();
const FORMATS = new Set(["png", "jpg"]);

app.post("/convert", (req, res) => {
  const { file, format } = req.body;
  const ext = FORMATS.has(format) ? format : "png";
  execFile("convert", ["--", file, `out.${ext}`], (err) => res.send(err ? "fail" : "ok"));
});

app.get("/whois", (req, res) => {
  const domain = /^[a-z0-9.-]+$/i.exec(req.query.domain);
  const out = domain ? execFileSync("whois", ["--", domain[0]]) : "";
  res.type("text").send(out);
});

function gitLog(ref) {
  return execFileSync("git", ["log", "--oneline", "--end-of-options", ref]).toString();
}

module.exports = { app, gitLog };
