const express = require("express");
const axios = require("axios");
const app = express();

app.get("/proxy", async (req, res) => {
  const target = req.query.url;
  const response = await fetch(target); // VULN
  res.send(await response.text());
});

app.post("/import", async (req, res) => {
  const { data } = await axios.get(req.body.feedUrl); // VULN
  res.json(data);
});
