"""`[tool.mu2py.COMMAND]`: any option of a command from pyproject.toml, checked by its parser; the command line wins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mu2py.cli.main import build_parser
from mu2py.cli.tables import with_tables
from mu2py.errors import UserError

ROOT = Path(__file__).resolve().parents[3]


def _parsed(tmp_path: Path, table: str, argv: list[str]):
    (tmp_path / "pyproject.toml").write_text(table)
    parser = build_parser()
    words = [*argv, "--root", str(tmp_path)]
    return with_tables(parser, words, parser.parse_args(words))


def test_a_table_sets_options_in_their_own_types_and_the_command_line_wins(tmp_path):
    args = _parsed(tmp_path, '[tool.mu2py.kill]\ntrials = 40\nseed = 7\nworkers = 2\n', ["kill", "--seed", "1"])
    assert (args.trials, args.seed, args.workers) == (40, 1, 2)


def test_a_table_value_never_joins_an_exclusive_option_the_command_line_gives(tmp_path):
    args = _parsed(tmp_path, '[tool.mu2py.kill]\ntrials = 40\n', ["kill", "--time", "2m"])
    assert args.trials is None and args.time == "2m"


@pytest.mark.parametrize(("table", "message"), [
    ('[tool.mu2py.kill]\ntrails = 40\n', "[tool.mu2py.kill]: unknown key trails (did you mean trials?)"),
    ('[tool.mu2py.kill]\ntrials = "many"\n', "[tool.mu2py.kill] trials:"),
    ('[tool.mu2py.kill]\ntrials = true\n', "trials must be a string or a number, got True"),
])
def test_a_bad_key_or_value_is_one_line_naming_it(tmp_path, table, message):
    with pytest.raises(UserError) as caught:
        _parsed(tmp_path, table, ["kill"])
    assert message in str(caught.value)


def test_fuzz_takes_its_budget_and_seed_from_the_table_of_the_current_directory(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mu2py.fuzz]\ntrials = 30\nseed = 3\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "mu2py", "fuzz", "targets.insertion_sort.driver:sort", "--out", "o",
                           "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "o" / "state.json").read_text())["stats"]["trials"] == 30
