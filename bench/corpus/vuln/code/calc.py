# ruff: noqa
from flask import Flask, request

app = Flask(__name__)


@app.route("/calc")
def calc():
    expr = request.args.get("expr", "1+1")
    return str(eval(expr))  # VULN


def load_plugin(source_text):
    namespace = {}
    exec(compile(source_text, "<plugin>", "exec"), namespace)  # VULN
    return namespace
