const crypto = require("crypto");

function passwordHash(password, salt) {
  return crypto.scryptSync(password, salt, 64).toString("hex");
}

module.exports = { passwordHash };
