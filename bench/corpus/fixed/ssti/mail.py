# ruff: noqa
import jinja2
from flask import Flask, render_template_string, request

app = Flask(__name__)
env = jinja2.Environment(autoescape=True)
SUBJECT = "Order {{ order.id }}: {{ subject }}"


@app.route("/preview")
def preview():
    greeting = request.args.get("greeting", "Hi")
    return render_template_string("{{ greeting }}, {{ user }}!", greeting=greeting, user="you")


def render_subject(subject, order):
    return env.from_string(SUBJECT).render(order=order, subject=subject)
