# ruff: noqa
from flask import Flask, request
from pymongo import MongoClient

app = Flask(__name__)
db = MongoClient()["app"]


@app.route("/login", methods=["POST"])
def login():
    creds = request.get_json()
    user = db.users.find_one({"email": creds["email"], "password": creds["password"]})  # VULN
    return {"ok": user is not None}


@app.route("/search", methods=["POST"])
def search():
    return {"items": list(db.items.find(request.json["filter"]))}  # VULN
