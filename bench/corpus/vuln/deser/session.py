# ruff: noqa
import base64
import pickle

import yaml
from flask import Flask, request

app = Flask(__name__)


@app.route("/cart/restore", methods=["POST"])
def restore():
    blob = base64.b64decode(request.cookies["cart"])
    return pickle.loads(blob)  # VULN


@app.route("/import", methods=["POST"])
def import_config():
    return yaml.load(request.data, yaml.Loader)  # VULN


def read_cache(path):
    with open(path, "rb") as fh:
        return pickle.load(fh)  # VULN
