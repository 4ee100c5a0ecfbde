from std_pkg.formats import to_csv, to_json


def test_json():
    assert to_json({"a": 1, "b": [2, 3]}) == '{"a":1,"b":[2,3]}'


def test_csv():
    assert to_csv([[1, 2], ["x", "y"]]) == "1;2\nx;y\n"
