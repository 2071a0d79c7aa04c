const express = require("express");
const app = express();

app.get("/profile", (req, res) => {
  const raw = Buffer.from(req.cookies.profile, "base64").toString();
  const profile = JSON.parse(raw);
  res.json(profile);
});
