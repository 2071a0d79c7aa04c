# ruff: noqa
import ast
import operator

from flask import Flask, request

app = Flask(__name__)
OPS = {ast.Add: operator.add, ast.Sub: operator.sub}


@app.route("/calc")
def calc():
    tree = ast.parse(request.args.get("expr", "1+1"), mode="eval")
    return str(_eval(tree.body))


def _eval(node):
    if isinstance(node, ast.Constant):
        return node.value
    return OPS[type(node.op)](_eval(node.left), _eval(node.right))


def load_settings(text):
    return ast.literal_eval(text)
