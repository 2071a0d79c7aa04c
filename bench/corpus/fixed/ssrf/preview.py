# ruff: noqa
import httpx
import requests
from flask import Flask, abort, request

app = Flask(__name__)
PARTNERS = {"github": "https://api.github.com", "gitlab": "https://gitlab.com/api/v4"}


@app.route("/preview")
def preview():
    base = PARTNERS.get(request.args.get("partner", ""))
    if base is None:
        abort(400)
    return requests.get(base + "/status", timeout=5).text[:200]


@app.route("/webhook/test", methods=["POST"])
def webhook_test():
    hook_id = int(request.get_json()["id"])
    return httpx.post(f"https://hooks.internal.example/{hook_id}", json={"ping": True}).text


def fetch(client, url):
    return client.get(url)
