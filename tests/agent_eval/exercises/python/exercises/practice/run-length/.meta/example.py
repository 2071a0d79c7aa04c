import itertools
import re


def encode(text):
    runs = ((len(list(group)), char) for char, group in itertools.groupby(text))
    return "".join(f"{n}{c}" if n > 1 else c for n, c in runs)


def decode(text):
    return "".join(c * int(n or 1) for n, c in re.findall(r"(\d*)(\D)", text))
