const express = require("express");
const User = require("./models/user");
const app = express();

app.post("/login", async (req, res) => {
  const user = await User.findOne({ email: String(req.body.email) });
  res.json({ ok: Boolean(user) });
});

app.get("/posts", async (req, res) => {
  const posts = await db.collection("posts").find({ author: String(req.query.author) }).toArray();
  const first = posts.find((p) => p.id === req.query.id);
  res.json(first || posts);
});
