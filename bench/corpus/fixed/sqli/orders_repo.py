# ruff: noqa
import sqlite3

from flask import Flask, request

app = Flask(__name__)
SORTABLE = {"name": "name", "price": "price"}


def get_db():
    return sqlite3.connect("shop.db")


@app.route("/orders")
def list_orders():
    customer = request.args.get("customer", "")
    status = request.args.get("status", "open")
    query = "SELECT id, total FROM orders WHERE customer = ? AND status = ?"
    rows = get_db().execute(query, (customer, status)).fetchall()
    return {"orders": rows}


class ReportRepository:
    def __init__(self, conn):
        self.conn = conn

    def totals_since(self, day):
        cur = self.conn.cursor()
        cur.execute("SELECT sum(total) FROM orders WHERE created >= ?", (day,))
        return cur.fetchone()

    def by_ids(self, ids):
        placeholders = ",".join("?" for _ in ids)
        return self.conn.execute(f"SELECT * FROM orders WHERE id IN ({placeholders})", list(ids))


@app.route("/search")
def search():
    term = request.args["q"]
    sort = SORTABLE.get(request.args.get("sort", "name"), "name")
    columns = "id, name, price"
    return get_db().execute(f"SELECT {columns} FROM products WHERE name LIKE ? ORDER BY name", (term,)).fetchall()
