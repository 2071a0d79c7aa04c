"""Python taint precision: branches that can never run, dict keys and list items known one
by one, values that survive a method on a call's result, handlers returning HTML."""

from __future__ import annotations

from aiagent.engines.security.dataflow import analyze
from aiagent.infra.syntax.treesitter import parse

HEAD = "from flask import request\nimport configparser, base64\n\ndef view(conn):\n    p = request.args.get('x')\n"


def tainted_lines(body: str, sink: str = "sql") -> list[int]:
    """Lines (counted from the first line of ``body``) where tainted data reaches ``sink``."""
    code = HEAD + "".join(f"    {line}\n" for line in body.strip("\n").splitlines())
    data = code.encode()
    found, _ = analyze("python", parse("python", data).root_node, data)
    offset = HEAD.count("\n")
    return sorted(h.node.start_point[0] + 1 - offset for h in found
                  if h.sink.sink_class == sink and h.value.tainted)


def test_if_whose_condition_is_a_known_constant_runs_one_arm() -> None:
    body = """
num = 86
if 7 * 42 - num > 200:
    bar = 'always'
else:
    bar = p
conn.execute('SELECT %s' % bar)
if 7 * 42 - num > 250:
    bar = 'never'
else:
    bar = p
conn.execute('SELECT %s' % bar)
"""
    assert tainted_lines(body) == [11]


def test_conditional_expression_and_membership_tests_fold() -> None:
    body = """
bar = 'fixed' if (7 * 42) - 106 > 100 else p
conn.execute('SELECT %s' % bar)
text = 'This should never happen'
if 'should' not in text:
    text = p
conn.execute('SELECT %s' % text)
if 'should' in text:
    text = p
conn.execute('SELECT %s' % text)
"""
    assert tainted_lines(body) == [9]


def test_unknown_condition_keeps_both_arms() -> None:
    body = """
bar = 'fixed' if p.startswith('a') else p
conn.execute('SELECT %s' % bar)
"""
    assert tainted_lines(body) == [2]


def test_match_on_a_known_subject_takes_its_case() -> None:
    body = """
guess = 'ABC'[1]
match guess:
    case 'A':
        bar = p
    case 'B':
        bar = 'bob'
    case _:
        bar = p
conn.execute('SELECT %s' % bar)
guess = 'ABC'[0]
match guess:
    case 'A':
        bar = p
    case _:
        bar = 'x'
conn.execute('SELECT %s' % bar)
"""
    assert tainted_lines(body) == [16]


def test_dict_items_under_constant_keys_are_kept_apart() -> None:
    body = """
m = {'static': 'a'}
m['user'] = p
conn.execute('SELECT %s' % m['static'])
conn.execute('SELECT %s' % m['user'])
conn.execute('SELECT %s' % m.get('static'))
"""
    assert tainted_lines(body) == [4]


def test_list_items_follow_append_and_pop() -> None:
    body = """
bar = ''
if p:
    lst = []
    lst.append('safe')
    lst.append(p)
    lst.append('moresafe')
    lst.pop(0)
    bar = lst[1]
conn.execute('SELECT %s' % bar)
lst2 = ['a', p]
conn.execute('SELECT %s' % lst2[1])
"""
    assert tainted_lines(body) == [11]


def test_configparser_values_are_read_back_by_section_and_key() -> None:
    body = """
conf = configparser.ConfigParser()
conf.add_section('s')
conf.set('s', 'a', 'fixed')
conf.set('s', 'b', p)
conn.execute('SELECT %s' % conf.get('s', 'a'))
conn.execute('SELECT %s' % conf.get('s', 'b'))
"""
    assert tainted_lines(body) == [6]


def test_list_changed_in_an_unfollowed_way_is_treated_as_a_whole() -> None:
    body = """
lst = ['a', 'b']
lst.extend([p])
lst.reverse()
conn.execute('SELECT %s' % lst[0])
"""
    assert tainted_lines(body) == [4]


def test_taint_survives_a_method_called_on_a_module_functions_result() -> None:
    body = """
bar = base64.b64decode(base64.b64encode(p.encode())).decode('utf-8')
conn.execute('SELECT %s' % bar)
"""
    assert tainted_lines(body) == [2]


def test_flask_route_returning_request_data_is_xss_unless_escaped_or_json() -> None:
    code = """from flask import request
from helpers.utils import escape_for_html

@app.route('/a')
def a():
    out = ''
    out += f"Hello {request.args.get('n')}"
    return out

@app.route('/b')
def b():
    return f"Hello {escape_for_html(request.args.get('n'))}"

@app.route('/c')
def c():
    return {"n": request.args.get('n')}

@api.get('/d')
def d():
    return f"Hello {request.args.get('n')}"
"""
    data = code.encode()
    found, _ = analyze("python", parse("python", data).root_node, data)
    assert [h.node.start_point[0] + 1 for h in found if h.sink.sink_class == "xss"] == [8]
