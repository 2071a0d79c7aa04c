const { exec } = require("child_process");

function rotateLogs(service) {
  const command = `logrotate -f /etc/logrotate.d/${service}`;
  exec(command, (err) => {
    if (err) console.error(err);
  });
}

function diskUsage(cb) {
  exec("df -h", cb);
}

module.exports = { rotateLogs, diskUsage };
