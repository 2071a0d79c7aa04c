const express = require("express");
const vm = require("vm");
const app = express();

app.post("/rules/test", (req, res) => {
  const result = eval(req.body.expression); // VULN
  res.json({ result });
});

function compileFilter(expr) {
  return new Function("item", "return " + expr); // VULN
}

app.post("/sandbox", (req, res) => {
  res.json(vm.runInNewContext(req.body.code, {})); // VULN
});

module.exports = { app, compileFilter };
