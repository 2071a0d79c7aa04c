const express = require("express");
const libxmljs = require("libxmljs");
const app = express();

app.post("/import", (req, res) => {
  const doc = libxmljs.parseXmlString(req.body.xml, { noent: true }); // VULN
  res.json({ root: doc.root().name() });
});
