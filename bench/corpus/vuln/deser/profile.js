const express = require("express");
const serialize = require("node-serialize");
const app = express();

app.get("/profile", (req, res) => {
  const raw = Buffer.from(req.cookies.profile, "base64").toString();
  const profile = serialize.unserialize(raw); // VULN
  res.json(profile);
});
