# ruff: noqa
from flask import Flask, request
from lxml import etree

app = Flask(__name__)
PARSER = etree.XMLParser(resolve_entities=True, no_network=False)  # VULN


@app.route("/feed", methods=["POST"])
def feed():
    doc = etree.fromstring(request.data)  # VULN
    return {"items": len(doc)}
