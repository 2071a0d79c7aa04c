# ruff: noqa
import urllib.request

import httpx
import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    url = request.args.get("url")
    page = requests.get(url, timeout=5)  # VULN
    return page.text[:200]


@app.route("/webhook/test", methods=["POST"])
def webhook_test():
    hook = request.get_json()["callback"]
    return httpx.post(hook, json={"ping": True}).text  # VULN


@app.route("/avatar")
def fetch_avatar():
    host = request.args["host"]
    return urllib.request.urlopen("http://" + host + "/avatar.png").read()  # VULN
