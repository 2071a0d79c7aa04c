"""Shop backend (deliberately vulnerable demo for `aiagent security-audit`)."""

import hashlib
import os
import pickle
import sqlite3
import subprocess

import yaml
from flask import Flask, request, render_template_string, send_file

from settings import DATABASE_PATH

app = Flask(__name__)
app.config["SECRET_KEY"] = "f3a9c1e77b2d4e05a8c6"
UPLOADS = "/srv/shop/uploads"


def db():
    return sqlite3.connect(DATABASE_PATH)


@app.route("/products")
def products():
    # Safe: a parameterised query.
    category = request.args.get("category", "all")
    rows = db().execute("SELECT id, name FROM products WHERE category = ?", (category,))
    return {"products": [dict(id=r[0], name=r[1]) for r in rows]}


@app.route("/orders")
def orders():
    customer = request.args["customer"]
    rows = db().execute(f"SELECT * FROM orders WHERE customer = '{customer}'")
    return {"orders": list(rows)}


@app.route("/admin/ping")
def ping():
    host = request.args.get("host", "127.0.0.1")
    out = subprocess.check_output("ping -c 1 " + host, shell=True)
    return out


@app.route("/greet")
def greet():
    name = request.args.get("name", "guest")
    return render_template_string("<h1>Hello " + name + "</h1>")


@app.route("/invoice")
def invoice():
    return send_file(os.path.join(UPLOADS, request.args["file"]))


@app.route("/cart/restore", methods=["POST"])
def restore_cart():
    return pickle.loads(request.get_data())


@app.route("/import", methods=["POST"])
def import_catalog():
    return {"items": yaml.load(request.get_data())}


def hash_password(password):
    return hashlib.md5(password.encode()).hexdigest()


if __name__ == "__main__":
    app.run(host="0.0.0.0", debug=True)
