# ruff: noqa
from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from flask import Flask, redirect, request, url_for

app = Flask(__name__)


@app.route("/login", methods=["POST"])
def login():
    return redirect(url_for("dashboard"))


def logout_view(request):
    target = request.GET.get("return_to", "/")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "/"
    return HttpResponseRedirect("/goodbye")
