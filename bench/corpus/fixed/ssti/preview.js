const express = require("express");
const ejs = require("ejs");
const app = express();

app.get("/card", (req, res) => {
  res.send(ejs.render("<h2><%= title %></h2>", { title: req.query.title }));
});
