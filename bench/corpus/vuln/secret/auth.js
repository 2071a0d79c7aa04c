const jwt = require("jsonwebtoken");
const crypto = require("crypto");

function issue(user) {
  return jwt.sign({ sub: user.id }, "super-secret-signing-key", { expiresIn: "1h" }); // VULN
}

function signature(body) {
  return crypto.createHmac("sha256", "hardcoded-hmac-key").update(body).digest("hex"); // VULN
}

module.exports = { issue, signature };
