# ruff: noqa
from flask import Flask, request
from pymongo import MongoClient

app = Flask(__name__)
db = MongoClient()["app"]


@app.route("/login", methods=["POST"])
def login():
    creds = request.get_json()
    user = db.users.find_one({"email": str(creds["email"])})
    return {"ok": user is not None}


@app.route("/search", methods=["POST"])
def search():
    category = str(request.json["category"])
    return {"items": list(db.items.find({"category": category}))}
