# ruff: noqa
import os
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/ping")
def ping():
    host = request.args.get("host", "127.0.0.1")
    return subprocess.check_output(f"ping -c 1 {host}", shell=True)  # VULN


@app.route("/thumb", methods=["POST"])
def thumbnail():
    name = request.form["name"]
    cmd = "convert uploads/" + name + " -resize 64x64 thumbs/" + name
    os.system(cmd)  # VULN
    return "ok"


def archive(folder):
    return os.popen("tar czf /tmp/backup.tgz %s" % folder).read()  # VULN
