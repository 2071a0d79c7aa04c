from two_fer import two_fer


def test_no_name():
    assert two_fer() == "One for you, one for me."


def test_a_name():
    assert two_fer("Ada") == "One for Ada, one for me."
