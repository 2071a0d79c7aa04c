"""Every bypass from issue 11 (command classification) beside the legitimate forms.

"Approved" means what the policy would run without asking: read-only, or every command
covered by a grant for ``npm test`` (read-only commands may sit beside granted ones).
"""

from __future__ import annotations

import pytest

from aiagent.agent.permissions import commands as sw

GRANT = ["npm test"]


def approved(text: str) -> bool:
    line = sw.parse(text)
    return sw.is_read_only(line) or sw.approved(line, GRANT)


SMUGGLED = [
    "npm test\ntouch x", "npm test #c\ntouch x", "npm te#st; touch x", "ls # x\ntouch x",
    "npm test;touch x", "npm test&&touch x", "npm test||touch x", "npm test|touch x",
    "npm test & touch x", "npm test `touch x`", "npm test $(touch x)", 'npm test "$(touch x)"',
    "npm test <(touch x)", "npm test >(touch x)", "(touch x)", "{ touch x; }",
    "f() { touch x; }; f", "eval touch x", "eval 'npm test'", "source ./x.sh", ". ./x.sh",
    "bash -c 'touch x'", "sh -c 'npm test'", "$'touch' x", "$'\\x74ouch' x",
    "ls $'a\\'b' ; touch x", "npm test $((1))", "npm test ${X}", "$X test", "npm test $X",
    "npm test \\\ntouch x", "npm test\rtouch x", "npm test {a,b}", "for f in a; do touch x; done",
    "if true; then touch x; fi", "npm test <<EOF\nx\nEOF", "bash <<EOF\ntouch x\nEOF",
    "npm test <<< x", "X=1; npm test", "export PATH=.; npm test", "ls ; coproc touch x",
]
REDIRECTS = [
    "npm test > x", "npm test >> x", "npm test &> x", "npm test &>> x", "npm test >| x",
    "npm test <> x", "npm test >&x", "npm test 2>x", "ls > x", "ls 2>> x", "git log >x",
    "ls >/dev/null >x", "cat <<EOF > x\nhi\nEOF",
]
READ_ONLY_FAMILY = [
    "git grep -Ocat foo", "git grep -O cat foo", "git grep -nOcat foo",
    "git grep --open-files-in-pager=cat foo", "git grep --open foo", "git diff --output=F",
    "git diff --output F", "git diff --out=F", "git log --output=F", "git show --output=F",
    "git diff --ext-diff", "git log --textconv", "sort -o F x", "sort -uo F x",
    "sort --output=F x", "sort --outp F x", "sort --compress-program=sh x", "rg --pre sh x",
    "rg --pre=sh x", "rg --pre-glob '*' x", "rg -z x", "rg --search-zip x",
    "find . -exec touch x \\;", "find . -execdir touch x \\;", "find . -ok touch x \\;",
    "find . -okdir touch x \\;", "find . -delete", "find . -fprint F", "find . -fprint0 F",
    "find . -fprintf F %p", "find . -fls F", "find . *", "find . -name x -o -delete",
    "sed -i s/a/b/ x", "sed -n 1p x", "sed 'w F' x", "sed 'e touch x' x",
    "awk 'BEGIN{system(\"touch x\")}'", "awk '{print}' x", "ls | xargs touch",
    "xargs -a x touch", "find . | xargs sort -o F", "echo x | tee F", "tee F", "uniq a F",
    "uniq -f1 a F", "uniq -c a F", "uniq *", "less x", "more x", "man ls", "tree -o F",
    "tree -R", "date -s 2020-01-01", "date --set=2020-01-01", "date --se=x", "file -C",
    "file -C -m x", "git -c core.pager=touch log", "git --config-env=a=b log",
    "git --exec-path=. log", "git --git-dir=x log", "git --work-tree=x status", "git -p log",
    "git --paginate log", "git push", "git status && git push", "git branch -D x",
]
WRAPPERS = [
    "command touch x", "env touch x", "nice touch x", "nohup touch x", "timeout 5 touch x",
    "sudo ls", "doas ls", "sudo npm test", "busybox touch x", "stdbuf -oL touch x",
    "time touch x", "exec touch x", "env -S 'touch x'", "env -S'npm test' ", "env PATH=. npm test",
    "PATH=. npm test", "LD_PRELOAD=x ls", "NODE_OPTIONS='--require ./x' npm test",
    "GIT_PAGER=touch git log", "./npm test", "./ls", "/tmp/ls", "/work/proj/npm test",
    "npm --silent test", "npm testing", "npm pkg set scripts.test=x", "npm", "npx test",
    "xargs npm test", "ls | xargs npm test", "/bin/l[s]", "l? -la", "~/bin/ls",
]
LEGITIMATE = [
    "git log --oneline -5", "ls -la", "rg foo src", "find . -name '*.py'", "npm test",
    "CI=1 /usr/bin/npm test -- --watch=false", "cd sub && npm test", "npm test 2>&1 | tail -5",
    "git --no-pager log -3", "sort -u x", "sort -k1 x", "uniq x", "uniq -c x",
    "git grep -n foo", "git diff --stat", "git diff --no-ext-diff", "ls *.py", "ls src/*.py",
    "find . -name '*.py' | xargs grep foo", "timeout 10 npm test", "nice -n 5 npm test",
    "env CI=1 npm test", "npm test # run the tests", "npm test\nls", "ls > /dev/null",
    "npm test 2>/dev/null", "grep -rn 'a;b' src", "echo 'it''s'", 'ls "a b"',
    "git log --format='%h %s'", "date +%Y", "date -u", "file x", "tree -L 2", "npm test &",
    "r\\g foo", "'ls' -la", "/bin/ls", "command ls", "git show HEAD:README.md",
    "git log @{u}..", "find . -name x -print", "cat $'a\\tb'", "echo \"a\\\"b\"",
    "git status; git diff", "npm test -- --grep 'a|b'", "pwd && ls ~", "cat < README.md",
]


@pytest.mark.parametrize("text", SMUGGLED + REDIRECTS + READ_ONLY_FAMILY + WRAPPERS)
def test_bypass_is_not_auto_approved(text: str) -> None:
    assert not approved(text), text


@pytest.mark.parametrize("text", LEGITIMATE)
def test_legitimate_line_is_approved(text: str) -> None:
    assert approved(text), text


@pytest.mark.parametrize("text,prefix", [
    ("command rm -rf x", "rm"), ("env rm x", "rm"), ("nice rm x", "rm"), ("/bin/r[m] x", "rm"),
    ("/bin/rm x", "rm"), ("r\\m x", "rm"), ("'rm' x", "rm"), ("./rm x", "rm"),
    ("git -c a=b push", "git push"), ("git --no-pager push", "git push"),
    ("git -C sub push origin", "git push"), ("sudo -u root rm x", "rm"), ("xargs rm", "rm"),
    ("find . -exec rm {} \\;", "rm"), ("bash -c 'ls; rm x'", "rm"), ("echo $(rm x)", "rm"),
    ("$X -rf x", "rm"), ("timeout -s KILL 5 rm x", "rm"), ("env -S 'rm x'", "rm"),
    ("busybox rm x", "rm"), ("/usr/bin/env -i A=1 rm x", "rm"), ("ls\nrm x", "rm"),
    ("npm te#st; rm x", "rm"), ("bash <<EOF\nrm x\nEOF", "rm"), ("watch -n1 rm x", "rm"),
    ("eval 'rm x'", "rm"), ("sudo git push", "git push"), ("nice -n5 git -C x push", "git push"),
    ("$'\\x72m' x", "rm"), ("sh -c $'\\x72m x'", "rm"),
])
def test_deny_catches_every_spelling(text: str, prefix: str) -> None:
    assert sw.denies(prefix, sw.parse(text)), text


@pytest.mark.parametrize("text,prefix", [
    ("ls rm", "rm"), ("git status", "git push"), ("command -v rm", "rm"), ("npm test", "rm"),
    ("echo 'rm x'", "rm"), ("git log --grep push", "git push"),
])
def test_deny_does_not_catch_other_commands(text: str, prefix: str) -> None:
    assert not sw.denies(prefix, sw.parse(text)), text


def test_relative_program_is_its_own_program() -> None:
    line = sw.parse("./npm test")
    assert line.analysed
    assert not sw.covers("npm test", line.commands[0])
    assert sw.covers("./npm test", line.commands[0])
    assert sw.denies("npm", line)
