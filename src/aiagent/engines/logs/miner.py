"""Template mining: a message (the header already cut off) and its level → a template id;
a template id → its template, the message with ``<*>`` where a variable was.

A message is split on whitespace (the spaces are kept for the template). Each token is
masked by the ``[variables]`` patterns of ``data/patterns.toml`` (numbers, addresses,
hex ids → ``<*>``); a token left with no letter is a *wildcard*: it never counts as
an equal word when two messages are compared. A message joins the template of its level
and length it is most similar to (equal words over the message's non-wildcard words),
if that similarity reaches ``sim_threshold``; the positions where they differ become
variables. The level is part of the identity: an ERROR line never joins an INFO template.

A message of a shape not seen lately first tries the *fast path*: the templates of its
level, length and first word are checked at C speed against the shapes of its words at
the places that are not variables (each such place remembers the few shapes its word was
seen in); a template that agrees everywhere takes it without masking any word. Only a
message no template takes that way is masked word by word and compared.

Memory is bounded: the caches are cleared past their limits, and past ``max_clusters``
the templates seen least are forgotten.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter

from aiagent.engines.logs.rules import limits, patterns

WILD = "\0"  # in a message's tokens: a variable (a masked number, address, id)
VARIED = ""  # in a template's tokens: the messages differ here
VAR = "<*>"
_SPLIT = re.compile(r"(\s+)")
_RUNS = re.compile(r"(?:<\*>)+")
_HEAD = re.compile(r".*[^A-Za-z0-9<*]|")  # up to the last character that ends a word
_TAIL = re.compile(r"(?:[^A-Za-z0-9>*].*)?$")  # from the first that starts one
CACHE_LIMIT = 32_768
# The cache key of a message: its digits all 0. The masks treat every digit alike, so
# messages equal but for their digits have one masked form, one template, one event.
_DATE_WORDS = frozenset(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Jan", "Feb", "Mar",
                         "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
# (the words of the date_word mask in patterns.toml, which a letters-only word skips)
_DATE_BYTES = frozenset(word.encode() for word in _DATE_WORDS)
DIGITS = bytes.maketrans(b"123456789", b"000000000")
INDEXED = 16  # templates of a level and length compared one by one; past that, indexed
CHECK_SHAPES = 16  # shapes a fixed place of a template remembers for the fast path
Pick = Callable[[list[bytes]], tuple[bytes, ...]]
# what a template's shapes said of the words at its fixed places, then its watched ones
FAILS, FITS, TEACHES = 0, 1, 2  # … they fit, and a watched place holds a shape new to it
Probe = tuple[Pick, tuple[dict[bytes, str], ...], int, int, tuple[set[bytes], ...],
              Pick, tuple[set[bytes], ...], dict[bytes, int]]


@dataclass(slots=True)
class Cluster:
    id: int
    level: str
    tokens: list[str]  # a masked word, or VARIED
    seps: list[str]  # the whitespace between tokens, as in the first message
    forms: list[str | None]  # at a VARIED place: the variable's form while all agree
    prefix: list[str]  # at a VARIED place: what all the forms start with
    suffix: list[str]  # … and end with
    watch: list[int]  # VARIED places with something left to learn
    keyed: list[int] = field(default_factory=list)  # places whose few words name events
    values: dict[int, list[str]] = field(default_factory=dict)  # … the words seen there
    events: dict[tuple[str, ...], int] = field(default_factory=dict)  # those words → event
    count: int = 0
    checks: dict[int, dict[bytes, str]] = field(default_factory=dict)  # fixed place: shapes
    probe: Probe | None = None  # the fast path's view of ``checks`` (None: to build)
    inert: dict[int, set[bytes]] = field(default_factory=dict)  # watched place: shapes
    wild: dict[int, set[bytes]] = field(default_factory=dict)  # varied place: wildcards' shapes
    # that teach it nothing more (what a place learns only narrows, so this only grows)


class TemplateMiner:
    def __init__(self, sim_threshold: float | None = None) -> None:
        cfg = limits()["mining"]
        self.sim = float(cfg["sim_threshold"] if sim_threshold is None else sim_threshold)
        self.max_clusters = int(cfg["max_templates"])
        self.max_keyed = int(cfg["max_keyed_words"])
        rules = patterns()
        self._variables = rules.variables
        self._inner = rules.inner_number
        self.clusters: dict[int, Cluster] = {}
        self._buckets: dict[tuple[str, int], list[Cluster]] = {}
        # level, length, place, word → templates that hold the word there (or once did)
        self._at: dict[tuple[str, int, int, str], list[Cluster]] = {}
        self._exact: dict[tuple[str, bytes], tuple[Cluster, int]] = {}
        self._events: dict[int, tuple[Cluster, tuple[str, ...]]] = {}  # event → its words
        self._alias: dict[int, int] = {}  # an event merged into an earlier one
        self._words: dict[str, tuple[str, str]] = {}  # a masked word: its token and form
        self._shapes: dict[bytes, tuple[str, str]] = {}  # a word's shape: the same
        # level and length → first word's shape (None: a varied one) → templates
        self._fast: dict[tuple[str, int], dict[bytes | None, dict[int, Cluster]]] = {}
        self._groups: dict[tuple[str, int, bytes], list[Cluster]] = {}  # _group, cached
        self._next = 1

    # ---- mining ----------------------------------------------------------------------

    def add(self, message: str, level: str = "", shape: bytes | None = None) -> int:
        """The id of the event ``message`` belongs to (a new one if no template is close).
        Ids of events later merged into another resolve to it (:meth:`resolve`).
        ``shape``: the message's UTF-8 bytes with its digits all 0, if already made."""
        if shape is None:
            shape = message.encode("utf-8", "surrogatepass").translate(DIGITS)
        key = (level, shape)
        got = self._exact.get(key)
        if got is None:  # a shape not seen lately: a template that fits, else mine it
            got = self._fits(shape, level) if message.isascii() else None
            if got is None:
                got = self._mine(message, shape, level)
            exact = self._exact
            if len(exact) >= CACHE_LIMIT:
                exact.clear()
            exact[key] = got
        cluster, event = got
        cluster.count += 1
        if event in self._alias:
            return self.resolve(event)
        return event

    def add_many(self, messages: list[str], levels: list[str], shapes: list[bytes | None]
                 ) -> list[int]:
        """:meth:`add` for many messages: their events, in order."""
        exact, alias, add, fits, mine = self._exact, self._alias, self.add, self._fits, self._mine
        events = []
        for message, level, shape in zip(messages, levels, shapes, strict=True):
            if shape is None:
                events.append(add(message, level, shape))
                continue
            key = (level, shape)
            got = exact.get(key)
            if got is None:  # (as in add)
                got = fits(shape, level) if message.isascii() else None
                if got is None:
                    got = mine(message, shape, level)
                if len(exact) >= CACHE_LIMIT:
                    exact.clear()
                exact[key] = got
            cluster, event = got
            cluster.count += 1
            events.append(self.resolve(event) if event in alias else event)
        return events

    def _mine(self, message: str, shape: bytes, level: str) -> tuple[Cluster, int]:
        """The template and event of a message (messages of one shape, equal but for their
        digits, get the same answer, so only a new shape is compared and learnt from)."""
        words, shapes = message.split(), shape.split()
        if len(words) == len(shapes):  # masked a word at a time, cached by the word's shape
            cache = self._shapes
            seen = [cache.get(s) or self._shaped(s, w) for s, w in zip(shapes, words, strict=True)]
        else:  # whitespace bytes.split does not know
            seen = [self._word(w) for w in self._variables.sub(VAR, message).split()]
        tokens = tuple([s[0] for s in seen])
        cluster = self._match(level, tokens)
        if cluster is None:
            cluster = self._new(level, tokens, _SPLIT.split(message.strip())[1::2], seen)
        elif sum(map(str.__eq__, cluster.tokens, tokens)) + cluster.tokens.count(VARIED) \
                < len(tokens):  # differs somewhere it did not vary yet
            self._merge(cluster, tokens)
        event = self._event_of(cluster, tuple(tokens[i] for i in cluster.keyed))
        if cluster.watch:
            _learn_forms(cluster, seen)
        if len(words) == len(shapes) and message.isascii():
            self._check(cluster, shapes, tokens)
        return cluster, event

    # ---- the fast path ---------------------------------------------------------------

    def _fits(self, shape: bytes, level: str) -> tuple[Cluster, int] | None:
        """The template of the level and length whose fixed places all hold a word of a
        shape seen there before (the most such places wins), and the event; None if none.
        No word is masked: the shapes are compared at C speed."""
        shapes = shape.split()
        if not shapes:
            return None
        key = (level, len(shapes), shapes[0])
        group = self._groups.get(key)
        if group is None:
            group = self._group(key)
        best: Cluster | None = None
        chosen: tuple[Probe, tuple[bytes, ...], int] | None = None
        most, sim = 0, self.sim
        for cluster in group:
            probe = cluster.probe or _probe(cluster, sim)
            picked = probe[0](shapes)  # (the shapes at its fixed places, then watched ones)
            verdict = probe[7].get(b" ".join(picked))  # (one hash: words have no space)
            if verdict is None:
                verdict = _verdict(probe, picked)
            if verdict == FAILS:
                continue
            _, _, fixed, allowed, _, vary, wild, _ = probe
            if allowed < len(wild) and len(wild) - sum(map(set.__contains__, wild, vary(shapes))) \
                    > allowed and not self._close(cluster, shapes, fixed):
                continue  # (more varied places hold a word of a new shape than may differ)
            if best is None or fixed > most or (fixed == most and cluster.count > best.count):
                best, most, chosen = cluster, fixed, (probe, picked, verdict)
        if best is None or chosen is None:
            return None
        event = self._keyed(best, shapes) if best.keyed else best.events[()]
        probe, picked, verdict = chosen
        if verdict == TEACHES:  # (a watched place holds a shape new to it)
            self._learn_shapes(best, shapes)
            if best.probe is probe:  # (what it says now)
                _verdict(probe, picked)
        return best, event

    def _group(self, key: tuple[str, int, bytes]) -> list[Cluster]:
        """The templates the fast path tries for a message of a level, length and first
        word's shape: those whose first word is fixed to it, then those where it varies."""
        level, n, first = key
        fast = self._fast.get((level, n), {})
        group = [*fast.get(first, {}).values(), *fast.get(None, {}).values()]
        if len(self._groups) >= CACHE_LIMIT:
            self._groups.clear()
        self._groups[key] = group
        return group

    def _close(self, cluster: Cluster, shapes: list[bytes], fixed: int) -> bool:
        """Whether the similarity reaches the threshold: the fixed places are all equal,
        the message's non-wildcard words at the varied places count against."""
        cache, wild = self._shapes, cluster.wild
        other = 0
        for i, token in enumerate(cluster.tokens):
            if token == VARIED:
                s = shapes[i]
                if (s.isalpha() and s not in _DATE_BYTES) or \
                        (cache.get(s) or self._shaped(s, s.decode()))[0] != WILD:
                    other += 1  # (letters only: a word, no mask applies)
                elif len(known := wild.setdefault(i, set())) < CHECK_SHAPES:
                    known.add(s)  # (seen by the next probe built)
        return fixed >= self.sim * (fixed + other)

    def _keyed(self, cluster: Cluster, shapes: list[bytes]) -> int:
        """The event of a message the fast path gave ``cluster``, by its keyed words."""
        checks = cluster.checks
        return self._event_of(cluster, tuple([checks[i][shapes[i]] for i in cluster.keyed]))

    def _learn_shapes(self, cluster: Cluster, shapes: list[bytes]) -> None:
        cache, inert = self._shapes, cluster.inert
        watch = list(cluster.watch)
        _learn_forms(cluster, {i: cache.get(shapes[i]) or self._shaped(shapes[i], shapes[i].decode())
                               for i in watch})  # type: ignore[arg-type]
        for i in cluster.watch:
            known = inert.get(i)
            if known is None:
                known = inert[i] = set()
                cluster.probe = None
            if len(known) < CHECK_SHAPES:
                known.add(shapes[i])


    def _check(self, cluster: Cluster, shapes: list[bytes], tokens: tuple[str, ...]) -> None:
        """The message's shapes at the template's fixed places, for the fast path."""
        checks = cluster.checks
        for i, token in enumerate(cluster.tokens):
            if token == VARIED:
                if checks.pop(i, None) is not None:
                    cluster.probe = None
                continue
            seen = checks.get(i)
            if seen is None:
                seen = checks[i] = {}
                cluster.probe = None
            if len(seen) < CHECK_SHAPES:
                if shapes[i] not in seen:
                    cluster.probe = None  # (messages that failed its checks may pass now)
                seen[shapes[i]] = tokens[i]
        if not checks:
            return
        anchor = shapes[0] if 0 in checks else None
        fast = self._fast.setdefault((cluster.level, len(shapes)), {})
        members = fast.setdefault(anchor, {})
        if cluster.id not in members:
            members[cluster.id] = cluster
            self._groups.clear()

    def resolve(self, event: int) -> int:
        """The event ``event`` was merged into (itself if none)."""
        alias = self._alias
        while event in alias:
            event = alias[event]
        return event

    def _shaped(self, shape: bytes, word: str) -> tuple[str, str]:
        if shape.isalpha() and word not in _DATE_WORDS:  # letters only: no mask applies
            return word, word  # (not cached: in a high-cardinality log it is unique)
        got = self._word(self._variables.sub(VAR, word))
        if len(self._shapes) >= CACHE_LIMIT:
            self._shapes.clear()
        self._shapes[shape] = got
        return got

    def _word(self, masked: str) -> tuple[str, str]:
        """A masked word's token for comparing (WILD for a variable) and its form."""
        got = self._words.get(masked)
        if got is None:
            form = _RUNS.sub(VAR, self._inner.sub(VAR, masked))
            wild = VAR in masked and not any(c.isalpha() for c in masked)
            got = (WILD if wild else masked, form)
            if len(self._words) >= CACHE_LIMIT:
                self._words.clear()
            self._words[masked] = got
        return got

    def _match(self, level: str, tokens: tuple[str, ...]) -> Cluster | None:
        """The most similar template of the level and length: equal words over the
        message's non-wildcard words (a keyed place matches any of its words)."""
        best, best_sim = None, self.sim
        total = len(tokens) - tokens.count(WILD)
        for cluster in self._candidates(level, tokens, total):
            equal = sum(map(str.__eq__, cluster.tokens, tokens))
            if cluster.values:
                equal += sum(1 for i, words in cluster.values.items()
                             if tokens[i] != cluster.tokens[i] and tokens[i] in words)
            sim = equal / total if total else 1.0
            if sim > best_sim or (sim == best_sim and (best is None or cluster.count > best.count)):
                best, best_sim = cluster, sim
        return best

    def _candidates(self, level: str, tokens: tuple[str, ...], total: int) -> list[Cluster]:
        """The templates of the level and length that may reach the threshold, in the
        order they were made: past a few, only those equal to the message at one of its
        first ``total - least + 1`` non-wildcard words at least (with fewer equal words
        than ``least`` none can)."""
        n = len(tokens)
        bucket = self._buckets.get((level, n), [])
        if len(bucket) <= INDEXED or not total:
            return bucket
        least = math.ceil(self.sim * total - 1e-9)
        places = [i for i, token in enumerate(tokens) if token != WILD][:total - least + 1]
        found: dict[int, Cluster] = {}
        at = self._at
        for i in places:
            for cluster in at.get((level, n, i, tokens[i]), ()):
                found[cluster.id] = cluster
        return [found[k] for k in sorted(found)]

    def _index(self, cluster: Cluster, i: int, word: str) -> None:
        self._at.setdefault((cluster.level, len(cluster.tokens), i, word), []).append(cluster)

    def _reindex(self) -> None:
        self._at = {}
        for cluster in self.clusters.values():
            for i, token in enumerate(cluster.tokens):
                if token != VARIED:
                    self._index(cluster, i, token)
            for i, words in cluster.values.items():
                for word in words[1:]:
                    self._index(cluster, i, word)

    def _new(self, level: str, tokens: tuple[str, ...], seps: list[str],
             seen: list[tuple[str, str]]) -> Cluster:
        if len(self.clusters) >= self.max_clusters:
            self._forget()
        n = len(tokens)
        cluster = Cluster(self._next, level, list(tokens), seps, [None] * n, [""] * n,
                          [""] * n, [])
        for i, token in enumerate(tokens):
            if token == WILD:
                _vary(cluster, i, seen[i][1])
            else:
                self._index(cluster, i, token)
        self.clusters[cluster.id] = cluster
        self._buckets.setdefault((level, n), []).append(cluster)
        return cluster


    def _merge(self, cluster: Cluster, tokens: tuple[str, ...]) -> None:
        """Places where ``tokens`` differs from the template: where both hold a plain word
        the place is *keyed* (each word its own event: ``VM Started``, ``VM Stopped``)
        until it has seen more than ``max_keyed_words`` words; then, as where a number or
        an id differs, it becomes a variable and the events that differ only there merge."""
        for i, (t, m) in enumerate(zip(cluster.tokens, tokens, strict=True)):
            if t in (m, VARIED):
                continue
            known = cluster.values.get(i)
            if known is not None:
                if m in known:
                    continue
                if _plain(m) and len(known) < self.max_keyed:
                    known.append(m)
                    self._index(cluster, i, m)
                    continue
                self._unkey(cluster, i)
            elif self.max_keyed > 1 and _plain(t) and _plain(m):
                self._key(cluster, i, [t, m])
                self._index(cluster, i, m)
                continue
            _vary(cluster, i, self._first_form(cluster, i))

    def _key(self, cluster: Cluster, i: int, words: list[str]) -> None:
        """Place ``i`` names events; the events so far all had the template's word there."""
        cluster.values[i] = words
        at = bisect.bisect(cluster.keyed, i)
        cluster.keyed.insert(at, i)
        word = cluster.tokens[i]
        events = {}
        for key, event in cluster.events.items():
            longer = key[:at] + (word,) + key[at:]
            events[longer] = event
            self._events[event] = (cluster, longer)
        cluster.events = events

    def _unkey(self, cluster: Cluster, i: int) -> None:
        """Place ``i`` is a variable after all: events differing only there merge into the
        first of them."""
        del cluster.values[i]
        at = cluster.keyed.index(i)
        del cluster.keyed[at]
        events: dict[tuple[str, ...], int] = {}
        for key, event in cluster.events.items():
            shorter = key[:at] + key[at + 1:]
            first = events.get(shorter)
            if first is None:
                events[shorter] = event
                self._events[event] = (cluster, shorter)
            else:
                self._alias[event] = first
                del self._events[event]
        cluster.events = events

    def _event_of(self, cluster: Cluster, key: tuple[str, ...]) -> int:
        """The event of ``cluster`` for the words at its keyed places (a new one if unseen)."""
        event = cluster.events.get(key)
        if event is None:
            event = cluster.events[key] = self._next
            self._next += 1
            self._events[event] = (cluster, key)
        return event

    def _first_form(self, cluster: Cluster, i: int) -> str:
        token = cluster.tokens[i]
        return _RUNS.sub(VAR, self._inner.sub(VAR, token))

    def _forget(self) -> None:
        """Too many templates (a log of unique lines): forget the less seen half."""
        ranked = sorted(self.clusters.values(), key=lambda c: c.count)
        for cluster in ranked[:len(ranked) // 2]:
            del self.clusters[cluster.id]
            for event in cluster.events.values():
                del self._events[event]
            self._buckets[(cluster.level, len(cluster.tokens))].remove(cluster)
        for groups in self._fast.values():
            for members in groups.values():
                for gone in [c for c in members if c not in self.clusters]:
                    del members[gone]
        self._groups.clear()
        self._reindex()
        self._exact.clear()

    # ---- templates -------------------------------------------------------------------

    def template(self, event: int) -> str | None:
        """The event's template, ``<*>`` where a variable is (None once forgotten)."""
        got = self._events.get(self.resolve(event))
        if got is None:
            return None
        cluster, key = got
        words = dict(zip(cluster.keyed, key, strict=True))
        out = []
        for i, token in enumerate(cluster.tokens):
            out.append(words.get(i, token) if token != VARIED else _shown(cluster, i))
            if i < len(cluster.seps):
                out.append(cluster.seps[i])
        return _RUNS.sub(VAR, "".join(out))


def _learn_forms(cluster: Cluster, seen: list[tuple[str, str]]) -> None:
    """What the forms at the VARIED places of ``cluster`` share, with this message."""
    done = []
    for i in cluster.watch:
        form = seen[i][1]
        if cluster.forms[i] == form:
            continue
        cluster.forms[i] = None
        pre, suf = cluster.prefix[i], cluster.suffix[i]
        if pre and not form.startswith(pre):
            pre = cluster.prefix[i] = os.path.commonprefix([pre, form])
        if suf and not form.endswith(suf):
            suf = cluster.suffix[i] = os.path.commonprefix([suf[::-1], form[::-1]])[::-1]
        if not pre and not suf:
            done.append(i)
    for i in done:
        cluster.watch.remove(i)
        cluster.probe = None


def _picker(places: list[int]) -> Callable[[list[bytes]], tuple[bytes, ...]]:
    """The words at ``places`` of a message's words, as a tuple (at C speed)."""
    if len(places) > 1:
        return itemgetter(*places)
    if places:
        one = places[0]
        return lambda words: (words[one],)
    return lambda words: ()


def _plain(token: str) -> bool:
    """A word with a letter, no digit and no variable part: it may name an event (a word
    with a digit in it is a name: ``eth0``, ``node_A8``)."""
    return (token != WILD and VAR not in token and any(c.isalpha() for c in token)
            and not any(c.isdigit() for c in token))


def _shown(cluster: Cluster, i: int) -> str:
    """A varied place: its form while all agree, else what all its forms start and end
    with up to a word's edge (``rhost=<*>``, ``[node_<*>]``, ``<*>:<*>``), around a variable."""
    form = cluster.forms[i]
    if form is not None:
        return form
    head = _HEAD.match(cluster.prefix[i])
    tail = _TAIL.search(cluster.suffix[i])
    return (head.group() if head else "") + VAR + (tail.group() if tail else "")


def _probe(cluster: Cluster, sim: float) -> Probe:
    places = sorted(cluster.checks)
    watch = list(cluster.watch)
    inert = tuple(cluster.inert.setdefault(i, set()) for i in watch)
    varied = [i for i, token in enumerate(cluster.tokens) if token == VARIED]
    wild = tuple(cluster.wild.setdefault(i, set()) for i in varied)
    fixed = len(places)
    allowed = -1  # the most varied places that may hold a word (not a variable)
    while allowed < len(varied) and fixed >= sim * (fixed + allowed + 1):
        allowed += 1
    if fixed >= sim * len(cluster.tokens):  # similar enough whatever the varied places hold
        allowed = len(varied)
    probe: Probe = (_picker(places + watch), tuple(cluster.checks[i] for i in places), fixed,
                    allowed, inert, _picker(varied), wild, {})
    cluster.probe = probe
    return probe


def _verdict(probe: Probe, picked: tuple[bytes, ...]) -> int:
    """What the shapes ``picked`` by a probe say (FAILS, FITS or TEACHES), remembered.
    A shape a fixed place has not seen fails; one a watched place has not seen teaches
    (once learnt, :meth:`TemplateMiner._learn_shapes` says it fits)."""
    _, checks, fixed, _, inert, _, _, verdicts = probe
    if not all(map(dict.__contains__, checks, picked)):
        verdict = FAILS
    elif all(map(set.__contains__, inert, picked[fixed:])):
        verdict = FITS
    else:
        verdict = TEACHES
    if len(verdicts) >= CACHE_LIMIT:
        verdicts.clear()
    verdicts[b" ".join(picked)] = verdict
    return verdict


def _vary(cluster: Cluster, i: int, form: str) -> None:
    cluster.tokens[i] = VARIED
    cluster.forms[i] = cluster.prefix[i] = cluster.suffix[i] = form
    cluster.watch.append(i)
    cluster.probe = None
