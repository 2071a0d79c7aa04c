"""Taint across statements for Java, Go, PHP and Ruby: request data assigned on one line
and used on another reaches the sink; constants and sanitized values do not."""

from __future__ import annotations

import pytest

from aiagent.engines.security.dataflow import analyze
from aiagent.infra.syntax.treesitter import parse

CASES = {
    "java": (
        'class A { void h(HttpServletRequest req) {\n'
        '  String id = req.getParameter("id");\n'
        '  String q = "SELECT * FROM t WHERE id = " + id;\n'
        '  stmt.executeQuery(q);\n}}\n',
        'class A { void h(HttpServletRequest req) {\n'
        '  String id = "7";\n'
        '  String q = "SELECT * FROM t WHERE id = " + id;\n'
        '  stmt.executeQuery(q);\n}}\n',
        'class A { void h(HttpServletRequest req) {\n'
        '  int id = Integer.parseInt(req.getParameter("id"));\n'
        '  stmt.executeQuery("SELECT * FROM t WHERE id = " + id);\n}}\n',
    ),
    "go": (
        'func h(w http.ResponseWriter, r *http.Request) {\n'
        '\tid := r.URL.Query().Get("id")\n'
        '\tq := fmt.Sprintf("SELECT * FROM t WHERE id = %s", id)\n'
        '\tdb.Query(q)\n}\n',
        'func h(w http.ResponseWriter, r *http.Request) {\n'
        '\tid := "7"\n'
        '\tq := "SELECT * FROM t WHERE id = " + id\n'
        '\tdb.Query(q)\n}\n',
        'func h(w http.ResponseWriter, r *http.Request) {\n'
        '\tid, _ := strconv.Atoi(r.FormValue("id"))\n'
        '\tdb.Query(fmt.Sprintf("SELECT * FROM t WHERE id = %d", id))\n}\n',
    ),
    "php": (
        "<?php\nfunction h() {\n  $id = $_GET['id'];\n  $q = \"SELECT * FROM t WHERE id = $id\";\n"
        "  mysqli_query($conn, $q);\n}\n",
        "<?php\nfunction h() {\n  $id = '7';\n  $q = \"SELECT * FROM t WHERE id = $id\";\n"
        "  mysqli_query($conn, $q);\n}\n",
        "<?php\nfunction h() {\n  $id = intval($_GET['id']);\n  $q = \"SELECT * FROM t WHERE id = $id\";\n"
        "  mysqli_query($conn, $q);\n}\n",
    ),
    "ruby": (
        "def show\n  id = params[:id]\n  q = \"SELECT * FROM t WHERE id = #{id}\"\n"
        "  User.find_by_sql(q)\nend\n",
        "def show\n  id = 7\n  q = \"SELECT * FROM t WHERE id = #{id}\"\n  User.find_by_sql(q)\nend\n",
        "def show\n  id = params[:id].to_i\n  q = \"SELECT * FROM t WHERE id = #{id}\"\n"
        "  User.find_by_sql(q)\nend\n",
    ),
}


def sql_hits(language: str, code: str) -> list[tuple[int, bool]]:
    data = code.encode()
    hits, _ = analyze(language, parse(language, data).root_node, data)
    return [(h.node.start_point[0] + 1, h.value.tainted and not h.value.safe_for("sql"))
            for h in hits if h.sink.sink_class == "sql"]


@pytest.mark.parametrize("language", sorted(CASES))
def test_request_data_reaches_the_query_through_variables(language: str) -> None:
    hits = sql_hits(language, CASES[language][0])
    assert hits and all(tainted for _, tainted in hits), hits


@pytest.mark.parametrize("language", sorted(CASES))
def test_constant_only_query_is_not_tainted(language: str) -> None:
    hits = sql_hits(language, CASES[language][1])
    assert hits and not any(tainted for _, tainted in hits), hits  # the sink is seen, untainted


@pytest.mark.parametrize("language", sorted(CASES))
def test_numeric_conversion_sanitizes(language: str) -> None:
    assert not any(tainted for _, tainted in sql_hits(language, CASES[language][2]))


def test_go_import_alias_resolves_to_the_package_name() -> None:
    code = (b'package m\nimport (\n\tx "os/exec"\n)\nfunc h(r *http.Request) {\n'
            b'\tx.Command(r.FormValue("c")).Run()\n}\n')
    hits, _ = analyze("go", parse("go", code).root_node, code)
    assert [(h.name, h.value.tainted) for h in hits] == [("exec.Command", True)]


def test_java_annotated_parameters_are_request_data() -> None:
    code = (b'class C { @GetMapping("/f") String f(@RequestParam String name, String other) {\n'
            b'  new FileInputStream(name); new FileInputStream(other); return ""; } }\n')
    hits, _ = analyze("java", parse("java", code).root_node, code)
    assert [h.value.tainted for h in hits] == [True, False]


def test_php_keyword_sinks_echo_include_backticks() -> None:
    code = b"<?php\n$p = $_GET['p'];\necho '<b>' . $p;\ninclude $p;\n$o = `ls $p`;\necho 'ok';\n"
    hits, _ = analyze("php", parse("php", code).root_node, code)
    assert sorted((h.node.start_point[0] + 1, h.sink.sink_class, h.value.tainted) for h in hits) == [
        (3, "xss", True), (4, "include", True), (5, "command", True), (6, "xss", False)]
