"""The taint engine follows values through the shapes real code uses, and no further."""

from __future__ import annotations

import pytest

from aiagent.engines.security.dataflow import analyze
from aiagent.engines.security.dataflow.spec import specs
from aiagent.infra.syntax.treesitter import parse


def hits(code: str, language: str = "python") -> dict[str, list[tuple[int, bool, bool]]]:
    """sink class -> [(line, tainted, built)]."""
    data = code.encode()
    found, _ = analyze(language, parse(language, data).root_node, data)
    out: dict[str, list[tuple[int, bool, bool]]] = {}
    for h in found:
        out.setdefault(h.sink.sink_class, []).append(
            (h.node.start_point[0] + 1, h.value.tainted, h.value.built))
    return out


def test_specs_load_for_python_and_javascript() -> None:
    assert {"python", "javascript", "typescript", "tsx"} <= set(specs())


def test_value_assigned_then_used_is_followed() -> None:
    code = ("def view():\n    uid = request.args['id']\n    q = 'SELECT * FROM t WHERE id = ' + uid\n"
            "    cur.execute(q)\n")
    assert hits(code)["sql"] == [(4, True, True)]


def test_constant_fstrings_and_placeholders_are_not_built() -> None:
    code = ("TABLE = 'users'\ndef f(con, keys):\n    marks = ', '.join('?' for _ in keys)\n"
            "    con.execute(f'SELECT * FROM {TABLE} WHERE id IN ({marks})', keys)\n")
    assert hits(code)["sql"] == [(4, False, False)]


def test_local_helper_return_carries_taint_of_its_argument_only() -> None:
    code = ("def wrap(tpl, values):\n    return tpl.replace('x', 'y')\n"
            "def view():\n    body = wrap('<p>x</p>', {'n': request.args['n']})\n"
            "    other = wrap(request.args['t'], {})\n    make_response(body)\n    make_response(other)\n")
    assert hits(code)["xss"] == [(6, False, False), (7, True, True)]


def test_sanitizer_clears_only_its_classes() -> None:
    code = ("def view():\n    name = secure_filename(request.args['f'])\n    open(name)\n"
            "    os.system('cat ' + name)\n")
    found = hits(code)
    assert found["path"] == [(3, True, False)] and found["command"] == [(4, True, True)]
    from aiagent.engines.security.dataflow.analyzer import FileAnalysis  # noqa: F401  (engine import works)


def test_guard_clears_path_after_containment_check() -> None:
    code = ("def view(base):\n    p = os.path.join(base, request.args['f'])\n"
            "    if not p.startswith(base):\n        abort(403)\n    return open(p)\n")
    data = code.encode()
    found, _ = analyze("python", parse("python", data).root_node, data)
    (hit,) = [h for h in found if h.sink.sink_class == "path"]
    assert hit.value.safe_for("path")


def test_from_import_resolves_sink_names() -> None:
    code = "from hashlib import md5\nfrom yaml import load\nmd5(b'x')\nload(text)\n"
    found = hits(code)
    assert found["weak_hash"] == [(3, False, False)] and found["deserialize"] == [(4, False, False)]


@pytest.mark.parametrize("code", [
    "const re = /a(b)c/;\nre.exec(userInput);\n",
    "const http = require('http');\nclient.get(url + path);\n",
])
def test_javascript_lookalikes_are_not_sinks(code: str) -> None:
    found = hits(code, "javascript")
    assert "command" not in found
    assert all(not tainted for _, tainted, _ in found.get("sql", []))


def test_javascript_destructured_require_and_template_literal() -> None:
    code = ("const { exec } = require('child_process');\n"
            "app.get('/x', (req, res) => {\n  const f = req.query.f;\n  exec(`convert ${f}`);\n});\n")
    assert hits(code, "javascript")["command"] == [(4, True, True)]


def test_deep_expression_does_not_crash() -> None:
    code = "def f(x):\n    q = " + " + ".join(["x"] * 3000) + "\n    cur.execute('SELECT ' + q)\n"
    hits(code)  # a RecursionError is contained: no exception, maybe no hit
