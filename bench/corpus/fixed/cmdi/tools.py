# ruff: noqa
import os
import shlex
import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.route("/ping")
def ping():
    host = request.args.get("host", "127.0.0.1")
    return subprocess.check_output(["ping", "-c", "1", "--", host])


@app.route("/thumb", methods=["POST"])
def thumbnail():
    name = os.path.basename(request.form["name"])
    subprocess.run(["convert", f"uploads/{name}", "-resize", "64x64", f"thumbs/{name}"], check=True)
    return "ok"


def archive(folder):
    return subprocess.run("tar czf /tmp/backup.tgz " + shlex.quote(folder), shell=True, capture_output=True).stdout


def uptime():
    return os.popen("uptime").read()
