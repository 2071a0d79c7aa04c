# ruff: noqa
import os
from pathlib import Path

from flask import Flask, request, send_file

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.route("/download")
def download():
    name = request.args["name"]
    full = os.path.join(UPLOADS, name)
    return send_file(full)  # VULN


@app.route("/avatar/<user>")
def avatar(user):
    path = Path(UPLOADS) / "avatars" / (user + ".png")
    with open(path, "rb") as fh:  # VULN
        return fh.read()


@app.route("/logs", methods=["DELETE"])
def delete_log():
    target = UPLOADS + "/logs/" + request.form.get("file", "")
    os.remove(target)  # VULN
    return "", 204
