const express = require("express");
const axios = require("axios");
const app = express();
const FEEDS = { news: "https://feeds.example.com/news.xml" };

app.get("/proxy", async (req, res) => {
  const response = await fetch("https://status.example.com/api");
  res.send(await response.text());
});

app.post("/import", async (req, res) => {
  const url = FEEDS[req.body.feed];
  if (!url) return res.sendStatus(400);
  const { data } = await axios.get(url);
  res.json(data);
});
