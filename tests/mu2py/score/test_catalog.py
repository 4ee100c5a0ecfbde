"""The parent's catalog of mutants stands in for a worker's own `Program`: same mutants, same mutated sources."""

import pickle
from pathlib import Path

from mu2py.score.catalog import catalog_of
from mu2py.score.hosted import _program
from mu2py.score.spec import SuiteSpec, build_program

SOURCE = '''"""A module."""
LIMIT = 3


class Box:
    def __init__(self, items=()):
        self.items = list(items)

    def full(self):
        return len(self.items) >= LIMIT and not (self.items == [])
'''


def _spec(root: Path) -> SuiteSpec:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "box.py").write_text(SOURCE)
    files = (str(root / "pkg" / "__init__.py"), str(root / "pkg" / "box.py"))
    return SuiteSpec(root=str(root), pytest_args=(), modules=("pkg", "pkg.box"), files=files)


def test_the_catalog_gives_every_mutant_source_of_the_program(tmp_path):
    program = build_program(_spec(tmp_path))
    catalog = pickle.loads(pickle.dumps(catalog_of(program)))  # as a worker receives it
    assert catalog.mutants == program.mutants and catalog.static == program.static
    assert len(program.mutants) > 10
    for m in program.mutants:
        assert catalog.mutant_source(m.id) == program.mutant_source(m.id)
        assert catalog.module_of(m.id) == program.module_of(m.id)


def test_a_worker_takes_the_catalog_only_for_the_same_sources_and_moves_it_to_its_files(tmp_path):
    catalog = catalog_of(build_program(_spec(tmp_path / "project")))
    copy = _spec(tmp_path / "copy")  # a worker's scratch copy: same sources, other files
    moved = _program(copy, catalog)
    assert moved.mutants == build_program(copy).mutants  # the files too: a mutant compiles under its worker's path
    assert [m.file for m in moved.target.modules] == list(copy.files)
    assert moved.target.modules[0].search_locations == (str(tmp_path / "copy" / "pkg"),)
    Path(copy.files[1]).write_text(SOURCE.replace("3", "4"))  # another source: the worker parses its own
    rebuilt = _program(copy, catalog)
    assert rebuilt is not moved and [m.original for m in rebuilt.mutants] != [m.original for m in moved.mutants]
    renamed = SuiteSpec(root=copy.root, pytest_args=(), modules=("pkg", "box"), files=copy.files)
    assert {m.module for m in _program(renamed, catalog).mutants} == {"box"}  # ids name the module


def test_the_catalog_carries_the_probes_of_the_program(tmp_path):
    program = build_program(_spec(tmp_path))
    probes = pickle.loads(pickle.dumps(catalog_of(program))).probes  # as a worker receives them
    assert probes.instrumented_sources() == program.instrumented_sources()
    tables = program.site_tables()
    assert probes.tables.keys() == tables.keys() and len(tables) > 3
    for sid, table in tables.items():
        assert (probes.tables[sid].kind, probes.tables[sid].mutants) == (table.kind, table.mutants)
        assert probes.tables[sid].alts == table.alts and probes.tables[sid].original is table.original


# each worker records whether it imported libcst or mutmut by the time its tests ran
RECORD = '''import os
import sys

from pkg.box import Box


def test_full():
    with open(os.environ["IMPORTED"], "a") as f:
        f.write(f"{'libcst' in sys.modules} {'mutmut' in sys.modules}\\n")
    assert Box([1, 2, 3]).full() and not Box([1]).full()
'''


def test_a_worker_given_the_catalog_never_parses_so_never_imports_libcst(tmp_path, monkeypatch, capsys):
    import json

    from mu2py.cli.main import main

    root = tmp_path / "project"
    _spec(root)
    (root / "tests").mkdir()
    (root / "tests" / "test_box.py").write_text(RECORD)
    imported = tmp_path / "imported"
    monkeypatch.setenv("IMPORTED", str(imported))
    assert main(["score", "--root", str(root), "--paths", "pkg", "--tests", "tests", "--no-cache", "--json",
                 "--import-time", "skip"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["killed"] > 0
    assert set(imported.read_text().splitlines()) == {"False False"}
