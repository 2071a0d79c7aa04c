from run_length import decode, encode


def test_encode():
    assert encode("AAB") == "2AB"
    assert encode("WWWWWWWWWWWWBWW") == "12WB2W"
    assert encode("") == ""


def test_round_trip():
    for text in ("zzz ZZ  zZ", "abc", "  aa"):
        assert decode(encode(text)) == text
