# ruff: noqa
import os
from pathlib import Path

from flask import Flask, request, send_from_directory
from werkzeug.utils import secure_filename

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.route("/download")
def download():
    return send_from_directory(UPLOADS, request.args["name"])


@app.route("/avatar/<user>")
def avatar(user):
    path = Path(UPLOADS) / "avatars" / (secure_filename(user) + ".png")
    with open(path, "rb") as fh:
        return fh.read()


@app.route("/logs", methods=["DELETE"])
def delete_log():
    target = os.path.join(UPLOADS, "logs", os.path.basename(request.form.get("file", "")))
    os.remove(target)
    return "", 204


def read_config(path):
    with open(path) as fh:
        return fh.read()
