"""`--version` on `mu2py` and `bonsai`: the installed distribution's version, else the package's `__version__`."""

from __future__ import annotations

from importlib import metadata

import pytest

import mu2py
from bonsai.cli import main as bonsai_main
from mu2py.cli.argtypes import package_version
from mu2py.cli.main import main


@pytest.mark.parametrize("command", [main, bonsai_main], ids=["mu2py", "bonsai"])
def test_version_is_printed_with_exit_0(command, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        command(["--version"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert out == f"{'mu2py' if command is main else 'bonsai'} {metadata.version('mu2py')}\n"


def test_version_falls_back_on_the_package_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert package_version("mu2py") == mu2py.__version__
    assert package_version("bonsai") == "unknown"  # no installed version and no __version__
