# ruff: noqa
from django.http import HttpResponseRedirect
from flask import Flask, redirect, request

app = Flask(__name__)


@app.route("/login", methods=["POST"])
def login():
    next_url = request.args.get("next", "/")
    return redirect(next_url)  # VULN


def logout_view(request):
    return HttpResponseRedirect(request.GET.get("return_to", "/"))  # VULN
