"""Header formats learnt from the first lines, template mining (masked tokens are
wildcards, the level is part of an event), the template text, the timeline's Spark/HDFS
stamps and line-number axis, and ``aiagent logs parse | templates``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from aiagent.engines.logs.headers import Headers
from aiagent.engines.logs.miner import TemplateMiner
from aiagent.engines.logs.parse import parse_lines

FIXTURES = Path(__file__).with_name("fixtures")


def header_cases() -> list[tuple[str, str, str]]:
    rows = (FIXTURES / "mixed_headers.txt").read_text(encoding="utf-8").splitlines()
    cases = []
    for row in rows:
        if row.startswith("#"):
            continue
        name, rest = row.split("|", 1)
        line, message = rest.rsplit("|", 1)
        cases.append((name, line, message))
    return cases


@pytest.mark.parametrize(("name", "line", "message"), header_cases())
def test_the_header_format_is_learnt_and_only_the_message_is_left(
        name: str, line: str, message: str) -> None:
    headers = Headers()
    assert headers.learn([line] * 3) is not None
    assert headers.format is not None and headers.format.name == name
    got = headers.split(line)
    assert got is not None and got[1] == message


def test_header_fields_become_columns_with_the_time() -> None:
    lines = (FIXTURES / "hdfs_like.log").read_text(encoding="utf-8").splitlines()
    rows = list(parse_lines(lines))
    assert rows[0].fields == {"pid": "148", "level": "INFO",
                              "component": "dfs.DataNode$PacketResponder"}
    assert rows[0].timestamp == 1226262975.0  # 2008-11-09T20:36:15Z
    assert rows[5].level == "warning"


def test_templates_of_a_log_are_its_events() -> None:
    lines = (FIXTURES / "hdfs_like.log").read_text(encoding="utf-8").splitlines()
    rows = list(parse_lines(lines))
    assert rows[0].template == "PacketResponder <*> for block blk_<*> terminating"
    assert {rows[i].template_id for i in (0, 1, 3, 6)} == {rows[0].template_id}
    assert rows[2].template == ("BLOCK* NameSystem.addStoredBlock: blockMap updated: <*>:<*> "
                                "is added to blk_<*> size <*>")
    assert rows[2].template_id == rows[4].template_id != rows[0].template_id
    assert rows[5].template == "<*>:<*>:Got exception while serving blk_<*> to /<*>:"


def test_masked_tokens_are_wildcards_not_equal_words() -> None:
    miner = TemplateMiner(sim_threshold=0.5)
    a = miner.add("10.0.0.1 42 0x1f connection opened")
    b = miner.add("10.0.0.2 43 0x2e session expired")
    assert a != b  # three shared masks made these look 60% alike to a masking parser
    assert miner.add("10.0.0.9 7 0xff connection opened") == a


def test_the_level_is_part_of_an_event() -> None:
    miner = TemplateMiner()
    info = miner.add("connection lost to db-1", "info")
    error = miner.add("connection lost to db-1", "error")
    assert info != error
    assert miner.add("connection lost to db-2", "error") == error


def test_a_varying_word_becomes_a_variable_and_spacing_is_kept() -> None:
    miner = TemplateMiner()
    users = ["root", "admin", "guest", "oracle", "test", "ftp"]
    ids = [miner.add(f"Failed password for {u} from 10.1.2.{i} port {22 + i}  ssh2")
           for i, u in enumerate(users)]
    # a few words there name events of their own; past max_keyed_words it is a variable
    assert len({miner.resolve(i) for i in ids}) == 1
    assert miner.template(ids[0]) == "Failed password for <*> from <*> port <*>  ssh2"
    other = miner.add("Accepted password for root from 10.1.2.3 port 22  ssh2")
    assert miner.template(other) == "Accepted password for <*> from <*> port <*>  ssh2"
    assert miner.resolve(other) != miner.resolve(ids[0])


def test_a_place_with_few_words_splits_events() -> None:
    miner = TemplateMiner()
    lines = [f"[instance: {n:08x}-aaaa-bbbb-cccc-{n:012x}] VM {state} (Lifecycle Event)"
             for n, state in enumerate(["Started", "Paused", "Resumed", "Stopped"] * 5)]
    ids = [miner.resolve(miner.add(line)) for line in lines]
    assert len(set(ids)) == 4
    assert miner.template(ids[2]) == "[instance: <*>] VM Resumed (Lifecycle Event)"
    assert ids[0] == ids[4] != ids[1]


def test_spark_and_hdfs_times_are_read() -> None:
    from aiagent.engines.logs.timeparse import iso, parse_time

    assert iso(parse_time("17/06/09 20:11:09 INFO storage.BlockManager: x")) == \
        "2017-06-09T20:11:09Z"
    assert iso(parse_time("081109 203615 148 INFO dfs.DataNode: x")) == "2008-11-09T20:36:15Z"
    assert parse_time("sent 123456 654321 bytes") is None  # only at the start of a line


def test_the_line_axis_starts_at_the_first_line() -> None:
    from aiagent.engines.logs.timeline import Timeline

    timeline = Timeline(240)
    for block in range(4):  # four blocks of 1000 lines, as the analyzer adds them
        timeline.add_span(block * 1000 + 1, block * 1000 + 1000, 1000)
    assert timeline.origin == 1
    buckets = timeline.buckets()
    assert len(buckets) > 10
    assert round(sum(b["lines"] for _, b in buckets)) == 4000
    assert buckets[0][1]["lines"] < 1000  # not the whole first block in one bucket


def test_an_untimed_log_gets_a_line_timeline_with_a_change_point() -> None:
    from aiagent.engines.logs.source import open_log
    from aiagent.engines.logs.static import analyse

    lines = [f"worker {i} handled request {i * 7}" for i in range(3000)]
    lines[1500:1700] = [f"ERROR worker {i} lost connection to db" for i in range(200)]
    data = ("\n".join(lines) + "\n").encode()
    report = analyse(open_log(None, io.BufferedReader(io.BytesIO(data))))  # type: ignore[arg-type]
    assert report["time_range"]["axis"] == "line"
    assert len(report["timeline"]["buckets"]) > 10
    assert report["change_points"], report["timeline"]
    assert 1200 <= report["change_points"][0]["at"] <= 1600


def test_logs_parse_writes_a_row_per_line(run_bytes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "spark.log"
    log.write_bytes((FIXTURES / "spark_like.log").read_bytes())
    done = run_bytes("logs", "parse", str(log), "-o", "jsonl")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[2]["template"] == "Running task <*>.<*> in stage <*>.<*> (TID <*>)"
    assert rows[2]["template_id"] == rows[3]["template_id"] == rows[5]["template_id"]
    assert rows[4]["level"] == "error" and rows[4]["template_id"] != rows[2]["template_id"]
    assert rows[0]["timestamp"] == "2017-06-09T20:10:40Z"
    assert rows[0]["component"] == "executor.CoarseGrainedExecutorBackend"
    done = run_bytes("logs", "parse", str(log), "-o", "csv")
    table = list(csv.DictReader(io.StringIO(done.stdout.decode())))
    assert len(table) == 6 and table[4]["level"] == "error"


def test_logs_templates_lists_counts_and_first_seen(run_bytes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "spark.log"
    log.write_bytes((FIXTURES / "spark_like.log").read_bytes())
    done = run_bytes("logs", "templates", str(log), "-o", "jsonl")
    assert done.returncode == 0, done.stderr
    table = [json.loads(line) for line in done.stdout.decode().splitlines()]
    top = table[0]
    assert top["count"] == 3 and top["level"] == "info"
    assert top["first_seen"] == "2017-06-09T20:10:45Z"
    assert top["last_seen"] == "2017-06-09T20:10:49Z"
    missing = run_bytes("logs", "templates", str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and b"no such file" in missing.stderr


def test_rare_templates_are_shown_and_levels_not_mixed() -> None:
    from aiagent.engines.logs.source import open_log
    from aiagent.engines.logs.static import analyse

    lines = [f"2024-05-01 12:00:{i % 60:02d} INFO [main] app.Db - connection lost to db-{i}"
             for i in range(300)]
    lines[150] = "2024-05-01 12:02:30 CRITICAL [main] app.Db - connection lost to db-9"
    lines[200] = "2024-05-01 12:03:20 INFO [main] app.Cfg - reloaded settings from disk"
    data = ("\n".join(lines) + "\n").encode()
    report = analyse(open_log(None, io.BufferedReader(io.BytesIO(data))))  # type: ignore[arg-type]
    critical = [c for c in report["clusters"] if c["level"] == "fatal"]
    assert len(critical) == 1 and critical[0]["count"] == 1
    assert critical[0]["template"] == "connection lost to db-<*>"
    assert critical[0]["first_seen"] == "2024-05-01T12:02:30Z"
    rare = {c["template"]: c for c in report["rare_clusters"]}
    assert "reloaded settings from disk" in rare


def test_paths_and_named_ids_are_one_variable() -> None:
    miner = TemplateMiner()
    a = miner.add("workerEnv.init() ok /etc/httpd/conf/workers2.properties")
    assert miner.template(a) == "workerEnv.init() ok <*>"  # a path is a parameter
    b = miner.add("Saved output of task 'attempt_1445144423722_0020_m_000000_0' to "
                  "hdfs://10.10.34.11:9000/pjhe/test/1/_temporary/0")
    assert miner.template(b) == "Saved output of task 'attempt_<*>' to hdfs://<*>"
    c = miner.add(r"Loading hive: \\?\C:\Windows\servicing\Packages\x.mum, done")
    assert miner.template(c) == "Loading hive: <*>, done"
    d = miner.add("Found block rdd_2_3 locally")
    assert miner.add("Found block rdd_17_0 locally") == d
    assert miner.template(d) == "Found block rdd_<*> locally"


def test_a_varied_place_keeps_what_all_its_values_share_up_to_a_word_edge() -> None:
    miner = TemplateMiner()
    hosts = ["rhost=10.0.0.1", "rhost=host-1.example.net", "rhost=srv.b.org", "rhost=x.y",
             "rhost=a.b", "rhost=q"]
    ids = [miner.add(f"authentication failure; {h}") for h in hosts]
    assert miner.template(ids[0]) == "authentication failure; rhost=<*>"
    ids = [miner.add(f"{h}:{p} open through proxy")
           for h, p in (("www.google.com", 443), ("mail.yahoo.jp", 80), ("api.x.org", 8080),
                        ("cdn.y.net", 443), ("a.b", 1), ("b.c", 2))]
    assert miner.template(ids[0]) == "<*>:<*> open through proxy"


def test_an_openstack_critical_incident_with_a_traceback_is_one_item() -> None:
    from aiagent.engines.logs.source import open_log
    from aiagent.engines.logs.static import analyse

    head = "nova-compute.log.1 2017-05-16 00:{m:02d}:{s:02d}.{f:03d} 2931 {lvl} nova.compute.manager"
    lines = []
    for i in range(400):
        state = ("Started", "Paused", "Resumed", "Stopped")[i % 4]
        lines.append(head.format(m=i // 60, s=i % 60, f=i % 1000, lvl="INFO") +
                     f" [req-{i:04x} - - - - -] [instance: 0c{i:06x}-aaaa-bbbb-cccc-"
                     f"0000000{i:05d}] VM {state} (Lifecycle Event)")
    lines[250:250] = [
        head.format(m=4, s=11, f=7, lvl="CRITICAL") + " [-] connection to rabbitmq lost",
        "Traceback (most recent call last):",
        '  File "/usr/lib/python2.7/site-packages/oslo_messaging/impl_rabbit.py", line 9, in x',
        "    self.connection.drain_events(timeout=1)",
        "ConnectionResetError: [Errno 104] Connection reset by peer",
    ]
    data = ("\n".join(lines) + "\n").encode()
    report = analyse(open_log(None, io.BufferedReader(io.BytesIO(data))))  # type: ignore[arg-type]
    top = report["clusters"][0]  # ranked first: the only fatal event
    assert top["level"] == "fatal" and top["count"] == 1
    assert top["template"] == "connection to rabbitmq lost"
    assert top["first_seen"] == "2017-05-16T00:04:11.007000Z" or \
        top["first_seen"].startswith("2017-05-16T00:04:11")
    event = top["exemplars"][0]["event"]
    assert len(event) == 5 and event[-1].startswith("ConnectionResetError")
    infos = [c for c in report["clusters"] if c["level"] == "info"]
    assert all("rabbitmq" not in c["template"] for c in infos)


def _varied_messages(n: int) -> list[tuple[str, str]]:
    """Messages of a few shapes with numbers of every length, unique words, paths and a
    place with few words (VM Started / Stopped), at two levels."""
    import random
    import string

    rnd = random.Random(3)
    shapes = ["VM {w} after {n} ms on host-{k}", "open /var/lib/{w}/{n}.db took {n} ms",
              "user {w} logged in from 10.0.{k}.{n} session {u}", "cache miss for key {n}",
              "job {u} finished in {n}ms id={n}", "GET /api/v{k}/items/{n} {k}{k}",
              "wrote {n}.{e} in {n} ms", "peer {a} {b} {n} state ok"]

    def word() -> str:
        return "".join(rnd.choice(string.ascii_lowercase) for _ in range(8))

    out = []
    for i in range(n):  # (a varied place's values share a suffix until halfway)
        ends = ["log.gz", "txt.gz"] if i < n // 2 else ["log.gz", "cfg", "json"]
        text = rnd.choice(shapes).format(
            w=rnd.choice(["Started", "Stopped", "Paused"]), n=rnd.randrange(10 ** rnd.randrange(1, 9)),
            k=rnd.randrange(30), u=word(), e=rnd.choice(ends),
            a=word() if rnd.random() < 0.3 else rnd.randrange(99),
            b=word() if rnd.random() < 0.3 else rnd.randrange(99))
        out.append((text, rnd.choice(["info", "error"])))
    return out


def test_the_fast_path_gives_what_masking_every_word_gives() -> None:
    messages = _varied_messages(4000)
    fast, slow = TemplateMiner(), TemplateMiner()
    slow._fits = lambda shape, level: None  # type: ignore[method-assign]
    mined = []
    real_mine = fast._mine

    def counted(*args):  # type: ignore[no-untyped-def]
        mined.append(1)
        return real_mine(*args)

    fast._mine = counted  # type: ignore[method-assign]
    got_fast = [fast.add(m, lv) for m, lv in messages]
    got_slow = [slow.add(m, lv) for m, lv in messages]
    assert len(mined) < len(messages) // 10  # most new shapes took the fast path
    assert [fast.resolve(i) for i in got_fast] == [slow.resolve(i) for i in got_slow]
    assert [fast.template(i) for i in got_fast] == [slow.template(i) for i in got_slow]


def test_the_template_index_finds_what_comparing_every_template_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from aiagent.engines.logs import miner as miner_module

    rnd = random.Random(5)
    vocab = [f"w{chr(97 + i)}x" for i in range(26)] + ["alpha", "beta", "gamma", "delta"]
    messages = [(" ".join(rnd.choice(vocab) for _ in range(4)) + f" took {rnd.randrange(999)} ms",
                 "info") for _ in range(3000)]

    def mine(indexed: int) -> tuple[list[int], list[str | None], int]:
        monkeypatch.setattr(miner_module, "INDEXED", indexed)
        miner = TemplateMiner()
        miner._fits = lambda shape, level: None  # type: ignore[method-assign]
        ids = [miner.resolve(miner.add(m, lv)) for m, lv in messages]
        return ids, [miner.template(i) for i in ids], len(miner.clusters)

    indexed, every = mine(0), mine(10 ** 9)
    assert indexed[2] > 500  # many templates of one level and length
    assert indexed == every


def test_lines_read_a_block_at_a_time_are_the_lines_read_one_by_one() -> None:
    from aiagent.engines.logs.parse import decoded, decoded_blocks

    data = b"first\r\nsecond \xff bad\nthird \xc3\xa9t\xc3\xa9\n\nlast, no end"
    one_by_one = [line.decode("utf-8", "replace").rstrip("\r\n")
                  for line in io.BytesIO(data)]
    for size in (1, 3, 7, 64):  # blocks cut inside lines and inside a UTF-8 character
        got = [line.rstrip("\r") for block in decoded_blocks(io.BytesIO(data), size)
               for line in block]
        assert got == one_by_one, size
    assert [line.rstrip("\r") for line in decoded(io.BytesIO(data))] == one_by_one


def test_mining_lines_in_blocks_gives_what_mining_them_one_list_gives() -> None:
    from aiagent.engines.logs.parse import Mined

    lines = [f"2024-05-01 12:00:{i % 60:02d},000 {('INFO', 'WARN', 'ERROR')[i % 3]} "
             f"[pool-{i % 7}] c.s.Repo - save {i} failed for {'abcdefghij'[i % 10] * 5}x{i}"
             for i in range(3000)]
    whole, blocks = Mined(), Mined()
    whole.feed(lines)
    blocks.feed_blocks([lines[at:at + 333] for at in range(0, len(lines), 333)])
    assert list(whole.ids) == list(blocks.ids)
    assert {k: (s.count, s.first_line, s.last_line) for k, s in whole.stats.items()} == \
        {k: (s.count, s.first_line, s.last_line) for k, s in blocks.stats.items()}


def test_a_block_of_new_shapes_is_classified_as_line_by_line() -> None:
    from aiagent.engines.logs.analyzer import Analyzer

    text = "".join(
        f"2024-05-01 12:00:{i % 60:02d},{i % 1000:03d} {('INFO', 'WARN', 'ERROR')[i % 3]} "
        f"[pool-{i % 7}] c.s.Repo - save failed for order {i} session "
        f"{''.join('qwxyzkmnpr'[int(d)] for d in f'{i * 7919:08d}')}\n"
        + ("\tat c.s.Repo.save(Repo.java:12)\n" if i % 50 == 0 else "")
        for i in range(600))
    many = Analyzer()  # every line a new key: mined together
    many.feed(text.encode())
    many.finish()
    one = Analyzer()  # the same, a line at a time
    for line in text.splitlines(keepends=True):
        one.feed(line.encode())
    one.finish()
    assert many.events == one.events and many.inner_lines == one.inner_lines
    assert {c: (s.count, s.events, s.level) for c, s in many.clusters.items()} == \
        {c: (s.count, s.events, s.level) for c, s in one.clusters.items()}


def test_each_format_s_quick_pattern_matches_as_the_full_one() -> None:
    """``Format.quick`` (only msg and level captured) takes the same lines, with the same
    message and level, as the format's own pattern, on every format's example lines."""
    from aiagent.engines.logs.headers import catalogue

    lines = [line for _, line, _ in header_cases()]
    lines += (FIXTURES / "hdfs_like.log").read_text(encoding="utf-8").splitlines()
    lines += (FIXTURES / "spark_like.log").read_text(encoding="utf-8").splitlines()
    taken = 0
    for fmt in catalogue()[0]:
        assert set(fmt.quick.groupindex) <= {"msg", "level"} and "msg" in fmt.quick.groupindex
        for line in lines:
            full, quick = fmt.rx.match(line), fmt.quick.match(line)
            assert (full is None) == (quick is None), (fmt.name, line)
            if full is not None and quick is not None:
                names = list(fmt.quick.groupindex)
                assert full.span() == quick.span() and full.group(*names) == quick.group(*names)
                taken += 1
    assert taken >= len(header_cases())
