"""A package module that cannot be imported on this platform (dateutil's `tz.win` needs `winreg`).

No test can import it, so none of its mutants can be judged: score skips them and says why,
instead of failing before the first test as it did on dateutil.
"""

import json
from pathlib import Path

import pytest

from mu2py.cli.main import main


def test_a_module_for_another_platform_is_skipped_and_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pkg = tmp_path / "plat_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text("def double(x: int) -> int:\n    return x * 2\n")
    (pkg / "winonly.py").write_text("import _mu2py_no_such_module\n\n\ndef key() -> int:\n    return 1 + 2\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(
        "from plat_pkg.core import double\n\n\ndef test_double():\n    assert double(3) == 6\n")
    assert main(["score", "--root", str(tmp_path), "--paths", "plat_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    summary = report["summary"]
    assert list(summary["unimportable"]) == ["plat_pkg.winonly"]
    assert "_mu2py_no_such_module" in summary["unimportable"]["plat_pkg.winonly"]
    assert summary["skipped_unimportable"] > 0
    assert all(Path(m["file"]).name == "core.py" for m in report["mutants"])
    assert summary["killed"] > 0 and summary["score"] is not None
