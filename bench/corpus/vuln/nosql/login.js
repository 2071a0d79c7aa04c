const express = require("express");
const User = require("./models/user");
const app = express();

app.post("/login", async (req, res) => {
  const user = await User.findOne({ email: req.body.email, password: req.body.password }); // VULN
  res.json({ ok: Boolean(user) });
});

app.get("/posts", async (req, res) => {
  const posts = await db.collection("posts").find({ $where: "this.author == '" + req.query.author + "'" }).toArray(); // VULN
  res.json(posts);
});
