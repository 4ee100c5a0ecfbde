"""The per-file ratchet: `--baseline FILE` fails when a file's score drops below the score kept for it."""

from __future__ import annotations

import json

from mu2py.cli.main import main


def test_a_weaker_test_fails_the_ratchet_for_its_file_only(calc_project, capsys) -> None:
    root = calc_project()
    kept = root / "mu2py-baseline.json"
    score = ["score", "--root", str(root), "--baseline", str(kept)]
    assert main(score) == 2
    assert "no baseline at" in capsys.readouterr().err
    assert main([*score, "--update-baseline"]) == 0
    files = json.loads(kept.read_text())["files"]
    assert files == {"calc/ops.py": {"score": 0.6667, "detected": 6, "mutants": 9},
                     "calc/text.py": {"score": 1.0, "detected": 4, "mutants": 4}}
    capsys.readouterr()
    assert main(score) == 0
    assert "2 files compared, 0 below" in capsys.readouterr().out

    # a shard judges no file whole: nothing to compare, and updating keeps what is there
    assert main([*score, "--shard", "1/2", "--update-baseline"]) == 0
    assert json.loads(kept.read_text())["files"] == files
    capsys.readouterr()

    test = root / "tests" / "test_text.py"
    test.write_text(test.read_text().replace('assert shout("a") == "A!"', 'assert shout("a").startswith("A")'))
    assert main(score) == 1
    out, err = capsys.readouterr()
    assert err.strip().splitlines() == ["mu2py: calc/text.py: score 75.0% is below its baseline 100.0%"]
    assert "2 files compared, 1 below" in out


def test_a_corrupt_baseline_is_named(calc_project, capsys) -> None:
    root = calc_project()
    (root / "b.json").write_text('{"version": 1}')
    assert main(["score", "--root", str(root), "--shard", "2/2", "--baseline", str(root / "b.json")]) == 2
    assert "not a mu2py baseline" in capsys.readouterr().err
    assert main(["score", "--root", str(root), "--update-baseline"]) == 2
    assert "--update-baseline needs --baseline FILE" in capsys.readouterr().err
