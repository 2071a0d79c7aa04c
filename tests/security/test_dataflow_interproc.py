"""Inter-procedural taint within a file: request data passed to a local helper that hands
its parameter to a sink is reported at the call, with the helper's sink line in the
evidence; a constant argument, a sanitizing helper, or a parameter that never reaches
the sink is not reported."""

from __future__ import annotations

from functools import lru_cache

from sec_helpers import source

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.scanners.sast import SastScanner

HEAD = ("import shlex\nimport subprocess\nfrom flask import Flask, request\n"
        "app = Flask(__name__)\n")


@lru_cache(maxsize=1)
def scanner() -> SastScanner:
    return SastScanner()


def command_findings(code: str) -> list[Finding]:
    found = scanner().scan_file(source("app.py"), (HEAD + code).encode())
    return [f for f in found if f.cwe == "CWE-78"]


def line(code: str, text: str) -> int:
    return (HEAD + code).splitlines().index(text) + 1


def test_tainted_argument_to_helper_with_a_sink_is_reported_at_the_call() -> None:
    code = ("def run(cmd):\n    subprocess.run(cmd, shell=True)\n"
            "@app.route('/x')\ndef x():\n    run(request.args['c'])\n    return 'ok'\n")
    (f,) = command_findings(code)
    assert f.id == "PY-CMDI-001"
    assert f.location.start_line == line(code, "    run(request.args['c'])")
    sink = line(code, "    subprocess.run(cmd, shell=True)")
    assert f.metadata["sink_line"] == str(sink) and f"line {sink}:" in f.evidence


def test_two_level_helper_chain_is_followed() -> None:
    code = ("def run(cmd):\n    subprocess.run(cmd, shell=True)\n"
            "def ls(flag, path):\n    run('ls ' + flag + ' ' + path)\n"
            "@app.route('/x')\ndef x():\n    ls('-l', request.args['p'])\n    return 'ok'\n")
    (f,) = command_findings(code)
    assert f.location.start_line == line(code, "    ls('-l', request.args['p'])")
    assert f.metadata["sink_line"] == str(line(code, "    subprocess.run(cmd, shell=True)"))


def test_method_called_through_self_is_followed() -> None:
    code = ("class Runner:\n    def run(self, cmd):\n        subprocess.run(cmd, shell=True)\n"
            "    def handle(self):\n        self.run(request.args['c'])\n")
    (f,) = command_findings(code)
    assert f.location.start_line == line(code, "        self.run(request.args['c'])")


# Each safe shape sits beside a tainted twin that must be reported, so that the test
# fails when the helper summaries are gone, not only when they over-report.


def test_helper_called_with_a_constant_is_not_reported() -> None:
    code = ("def run(cmd):\n    subprocess.run(cmd, shell=True)\n"
            "@app.route('/x')\ndef x():\n    run('ls -l')\n    return 'ok'\n"
            "@app.route('/y')\ndef y():\n    run(request.args['c'])\n    return 'ok'\n")
    lines = [f.location.start_line for f in command_findings(code)]
    assert lines == [line(code, "    run(request.args['c'])")]


def test_helper_quoting_its_parameter_before_the_sink_is_not_reported() -> None:
    code = ("def run(name):\n    subprocess.run('ls ' + shlex.quote(name), shell=True)\n"
            "def bare(name):\n    subprocess.run('ls ' + name, shell=True)\n"
            "@app.route('/x')\ndef x():\n    run(request.args['c'])\n    bare(request.args['c'])\n"
            "    return 'ok'\n")
    lines = [f.location.start_line for f in command_findings(code)]
    assert lines == [line(code, "    bare(request.args['c'])")]


def test_parameter_that_never_reaches_the_sink_is_not_reported() -> None:
    code = ("def run(cmd, label):\n    print(label)\n    subprocess.run(cmd, shell=True)\n"
            "@app.route('/x')\ndef x():\n    run('ls -l', request.args['c'])\n"
            "    run(request.args['c'], 'label')\n    return 'ok'\n")
    lines = [f.location.start_line for f in command_findings(code)]
    assert lines == [line(code, "    run(request.args['c'], 'label')")]


def test_recursive_helpers_terminate() -> None:
    code = ("def a(cmd, n):\n    if n:\n        b(cmd, n - 1)\n    subprocess.run(cmd, shell=True)\n"
            "def b(cmd, n):\n    a(cmd, n)\n"
            "@app.route('/x')\ndef x():\n    a(request.args['c'], 3)\n    return 'ok'\n")
    (f,) = command_findings(code)
    assert f.location.start_line == line(code, "    a(request.args['c'], 3)")



def test_helper_sink_reported_on_its_own_is_not_repeated_at_the_call() -> None:
    code = ("function show(message) {\n  document.getElementById('f').innerHTML = message;\n}\n"
            "const params = new URLSearchParams(window.location.search);\n"
            "show(params.get('msg'));\n")
    found = scanner().scan_file(source("app.js"), code.encode())
    assert [(f.id, f.location.start_line) for f in found if f.cwe == "CWE-79"] == [("JS-XSS-001", 2)]
