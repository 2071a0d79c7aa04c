"""Order lookups for the shop back office."""
import os
import sqlite3
import subprocess

import requests
from flask import Flask, abort, request, send_file
from werkzeug.utils import secure_filename

app = Flask(__name__)
DB_PATH = os.environ.get("SHOP_DB", "shop.db")
EXPORT_DIR = "/srv/exports"


def db():
    return sqlite3.connect(DB_PATH)


@app.get("/orders/<int:order_id>")
def order(order_id):
    cur = db().cursor()
    cur.execute("SELECT id, total FROM orders WHERE id = ?", (order_id,))
    return {"order": cur.fetchone()}


@app.get("/orders/search")
def search():
    customer = request.args.get("customer", "")
    cur = db().cursor()
    cur.execute(f"SELECT id, total FROM orders WHERE customer = '{customer}'")
    return {"orders": cur.fetchall()}


@app.get("/orders/count")
def count():
    cur = db().cursor()
    cur.execute("SELECT count(*) FROM orders")
    return {"count": cur.fetchone()[0]}


@app.post("/exports")
def export():
    name = request.form["name"]
    subprocess.run(["tar", "czf", os.path.join(EXPORT_DIR, secure_filename(name)), "data/"])
    os.system("gzip -k " + name)
    return {"ok": True}


@app.get("/exports/download")
def download():
    return send_file(request.args["file"])


@app.get("/exports/safe-download")
def safe_download():
    return send_file(os.path.join(EXPORT_DIR, secure_filename(request.args["file"])))


@app.get("/preview")
def preview():
    resp = requests.get(request.args["url"], timeout=5)
    return resp.text


@app.get("/status")
def status():
    resp = requests.get("https://status.example.com/api", timeout=5)
    if resp.status_code != 200:
        abort(502)
    return resp.json()
