"""Monthly reports: queries assembled in a variable before they run."""
import sqlite3


def monthly(conn: sqlite3.Connection, month: str):
    query = "SELECT sum(total) FROM orders WHERE month = '" + month + "'"
    return conn.execute(query).fetchone()


def monthly_safe(conn: sqlite3.Connection, month: str):
    query = "SELECT sum(total) FROM orders WHERE month = ?"
    return conn.execute(query, (month,)).fetchone()
