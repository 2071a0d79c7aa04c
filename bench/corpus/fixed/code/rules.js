const express = require("express");
const app = express();
const FILTERS = { active: (item) => item.active, paid: (item) => item.paid };

app.post("/rules/test", (req, res) => {
  const result = JSON.parse(req.body.expression);
  res.json({ result });
});

function compileFilter(name) {
  return FILTERS[name] || (() => true);
}

setTimeout(() => compileFilter("active"), 1000);

module.exports = { app, compileFilter };
