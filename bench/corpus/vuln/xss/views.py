# ruff: noqa
from django.http import HttpResponse
from flask import Flask, make_response, request
from markupsafe import Markup

app = Flask(__name__)


@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    return make_response("<h1>Hello, " + name + "</h1>")  # VULN


def search_view(request):
    q = request.GET.get("q", "")
    return HttpResponse(f"<p>Results for {q}</p>")  # VULN


@app.route("/bio")
def bio():
    return str(Markup(request.args["bio"]))  # VULN
