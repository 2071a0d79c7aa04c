const jwt = require("jsonwebtoken");
const crypto = require("crypto");

function issue(user) {
  return jwt.sign({ sub: user.id }, process.env.JWT_SECRET, { expiresIn: "1h" });
}

function signature(body) {
  return crypto.createHmac("sha256", process.env.HMAC_KEY).update(body).digest("hex");
}

module.exports = { issue, signature };
