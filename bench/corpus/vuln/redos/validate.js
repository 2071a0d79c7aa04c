const express = require("express");
const app = express();
const SLUG = /^([a-z0-9]+-?)+$/; // VULN

app.get("/filter", (req, res) => {
  const rx = new RegExp(req.query.q, "i"); // VULN
  res.json(["a", "b"].filter((s) => rx.test(s) && SLUG.test(s)));
});
