"""`[tool.mu2py]`: every key and type checked, one line naming a bad key and the nearest valid one."""

import pytest

from mu2py.errors import UserError
from mu2py.target.project import command_options, load_config


def _config(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text)
    return load_config(tmp_path)


def test_the_shared_keys_and_a_table_per_command_are_read(tmp_path):
    config = _config(tmp_path, '[tool.mu2py]\npaths = ["pkg"]\ntests = ["tests"]\n\n'
                               '[tool.mu2py.score]\nworkers = 2\nfail_under = 80\n')
    assert config["paths"] == ["pkg"] and command_options(config, "score") == {"workers": 2, "fail_under": 80}
    assert command_options(config, "fuzz") == {}
    assert load_config(tmp_path / "nowhere") == {}


@pytest.mark.parametrize("text, message", [
    ('[tool.mu2py]\npath = ["pkg"]\n', "unknown key path in [tool.mu2py] (did you mean paths?)"),
    ('[tool.mu2py]\nfail_under = 99\n', "fail_under is an option of score: put it under [tool.mu2py.score]"),
    ('[tool.mu2py.score]\nworker = 2\n', "unknown key worker in [tool.mu2py.score] (did you mean workers?)"),
    ('[tool.mu2py.score]\nworkers = "2"\n', "[tool.mu2py.score] workers must be an integer, got '2'"),
    ('[tool.mu2py.score]\nfail_under = true\n', "fail_under must be a number, got True"),
    ('[tool.mu2py]\ntests = "tests"\n', "[tool.mu2py] tests must be a list of strings, got 'tests'"),
    ('[tool.mu2py]\nskip = [1]\n', "skip must be a list of strings"),
    ('[tool.mu2py]\nscore = 1\n', "score must be a table ([tool.mu2py.score])"),
])
def test_a_bad_key_or_type_is_one_line_naming_it(tmp_path, text, message):
    with pytest.raises(UserError) as raised:
        _config(tmp_path, text)
    assert message in str(raised.value) and "\n" not in str(raised.value)
