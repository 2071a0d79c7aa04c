const express = require("express");
const escapeStringRegexp = require("escape-string-regexp");
const app = express();
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

app.get("/filter", (req, res) => {
  const rx = new RegExp(escapeStringRegexp(req.query.q), "i");
  res.json(["a", "b"].filter((s) => rx.test(s) && SLUG.test(s)));
});
