# ruff: noqa
import jinja2
from flask import Flask, render_template_string, request

app = Flask(__name__)
env = jinja2.Environment()


@app.route("/preview")
def preview():
    greeting = request.args.get("greeting", "Hi")
    return render_template_string(greeting + ", {{ user }}!", user="you")  # VULN


def render_subject(subject_template, order):
    return env.from_string(f"Order {order.id}: " + subject_template).render(order=order)  # VULN
