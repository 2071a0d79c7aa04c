# ruff: noqa
import sqlite3

from flask import Flask, request

app = Flask(__name__)


def get_db():
    return sqlite3.connect("shop.db")


@app.route("/orders")
def list_orders():
    customer = request.args.get("customer", "")
    status = request.args.get("status", "open")
    query = "SELECT id, total FROM orders WHERE customer = '%s'" % customer
    query += " AND status = '" + status + "'"
    rows = get_db().execute(query).fetchall()  # VULN
    return {"orders": rows}


class ReportRepository:
    def __init__(self, conn):
        self.conn = conn

    def totals_since(self, day):
        sql = f"SELECT sum(total) FROM orders WHERE created >= '{day}'"
        cur = self.conn.cursor()
        cur.execute(sql)  # VULN
        return cur.fetchone()

    def by_ids(self, ids):
        placeholders = ",".join(str(i) for i in ids)
        return self.conn.execute("SELECT * FROM orders WHERE id IN ({})".format(placeholders))  # VULN


@app.route("/search")
def search():
    term = request.args["q"]
    sort = request.args.get("sort", "name")
    return get_db().execute("SELECT * FROM products WHERE name LIKE ? ORDER BY " + sort, (term,)).fetchall()  # VULN
