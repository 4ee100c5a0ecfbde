"""`streams.own_stdout`: what the program under test sees of the command's process while a command runs it."""

import sys

from mu2py.cli.streams import own_stdout


def test_the_program_sees_no_arguments_an_empty_stdin_and_prints_nowhere(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["mu2py", "corpus", "pkg", "--time", "60s", "--seed", "0"])
    stdin = sys.stdin
    with own_stdout() as out:
        # argparse in a fuzzed function would read mu2py's own options, which differ between runs of one campaign
        assert sys.argv == ["mu2py"]
        assert sys.stdin.read() == ""  # a function reading its input gets none, instead of waiting on a terminal
        print("the program's line")
        out.write("the command's line\n")
    assert sys.argv == ["mu2py", "corpus", "pkg", "--time", "60s", "--seed", "0"] and sys.stdin is stdin
    assert capsys.readouterr().out == "the command's line\n"
