from leap import is_leap


def test_common_years():
    assert not is_leap(2023)
    assert not is_leap(1900)


def test_leap_years():
    assert is_leap(2024)
    assert is_leap(2000)
