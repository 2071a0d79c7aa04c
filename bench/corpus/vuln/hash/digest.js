const crypto = require("crypto");

function passwordHash(password) {
  return crypto.createHash("md5").update(password).digest("hex"); // VULN
}

module.exports = { passwordHash };
