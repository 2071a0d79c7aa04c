# ruff: noqa
import re

from flask import Flask, request

app = Flask(__name__)
EMAIL = re.compile(r"^([a-zA-Z0-9_.-]+)+@([a-zA-Z0-9-]+\.)+[a-z]{2,}$")  # VULN


@app.route("/grep")
def grep():
    pattern = request.args["pattern"]
    return {"match": bool(re.search(pattern, "some text"))}  # VULN
