# ruff: noqa
from django.http import HttpResponse
from django.utils.html import escape
from flask import Flask, make_response, render_template, request
from markupsafe import Markup

app = Flask(__name__)


@app.route("/hello")
def hello():
    return render_template("hello.html", name=request.args.get("name", ""))


def search_view(request):
    q = escape(request.GET.get("q", ""))
    return HttpResponse(f"<p>Results for {q}</p>")


@app.route("/bio")
def bio():
    return str(Markup("<p>{}</p>").format(request.args["bio"]))


BANNER = Markup("<strong>Maintenance tonight</strong>")
