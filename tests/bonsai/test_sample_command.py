"""`bonsai sample --out`: files written in batches, atomically, with one flush to disk per batch."""

import os
from pathlib import Path

import bonsai.sample_command as sample_command
from bonsai.cli import main
from bonsai.cli_args import EXIT_INTERRUPTED
from bonsai.sample_command import split_inputs

JSON = str(Path(__file__).resolve().parents[2] / "grammars" / "json.lark")


def test_sample_out_writes_batches_whole_and_leaves_no_half_file(tmp_path, monkeypatch, capsys):
    syncs = []
    monkeypatch.setattr(sample_command, "BATCH", 2)
    monkeypatch.setattr(sample_command.os, "sync", lambda: syncs.append(1))
    args = ["sample", JSON, "--bounds", "2,2,2", "--count", "5", "--seed", "9"]
    assert main([*args, "--out", str(tmp_path / "all")]) == 0
    printed = capsys.readouterr().out.split()
    assert len(syncs) == 3  # batches of 2, 2 and 1: one flush each, not one per file
    assert main(args) == 0
    expected = split_inputs(capsys.readouterr().out)
    files = sorted((tmp_path / "all").iterdir())
    assert printed == [str(f) for f in files] and [f.read_text() for f in files] == expected
    # interrupted while renaming the second batch: what has a final name is whole, no temporary file stays
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 4:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(sample_command.os, "replace", replace)
    assert main([*args, "--out", str(tmp_path / "cut")]) == EXIT_INTERRUPTED
    cut = sorted((tmp_path / "cut").iterdir())
    assert [f.name for f in cut] == [f.name for f in files[:3]]
    assert [f.read_text() for f in cut] == expected[:3]
