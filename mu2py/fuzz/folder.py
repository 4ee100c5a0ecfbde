"""A campaign's output folder besides its corpus: plot_data.csv, mutants.json, state.json and failures/.

Every write is atomic (a reader never sees half a file); every read for a resume checks the file
and raises UserError naming a corrupt one, with its remedy, before anything is written.  Without an
output folder (`out` None) writes do nothing and reads find nothing.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.store.atomic import write_atomic, write_json

PLOT_FIELDS = (
    "elapsed", "trials", "execs_per_sec", "corpus", "coverage", "mutants", "killed",
    "run_this_input", "pruned_execution", "pruned_infection", "filtered", "invalid", "failures",
)
REPORT_EVERY = 15.0  # seconds between two mutants.json written during a campaign (see write_mutants)


def _corrupt(path: Path, detail: str, remedy: str) -> UserError:
    return UserError(f"{path} is corrupt ({detail}); {remedy}, or move the output directory aside to start afresh")


class CampaignFolder:
    """The files of one campaign's output folder, and what was last written to them."""

    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.plot_rows: list[dict[str, Any]] = []
        self.report: dict[str, Any] | None = None  # the last mutants.json written
        self._mutants_written: tuple[int, int] | None = None  # (kills, reached sites) of the last mutants.json
        self._mutants_at = -REPORT_EVERY  # perf_counter() when it was written

    def add_plot_row(self, row: dict[str, Any]) -> None:
        """Append a row (PLOT_FIELDS) and rewrite plot_data.csv."""
        self.plot_rows.append(row)
        if self.out is None:
            return
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=PLOT_FIELDS)
        writer.writeheader()
        writer.writerows(self.plot_rows)
        write_atomic(self.out / "plot_data.csv", buf.getvalue())

    def write_mutants(self, analysis: Any, final: bool) -> None:
        """Write mutants.json from `analysis` (an Analysis) when it changed, at most every REPORT_EVERY s."""
        if self.out is None or analysis is None:
            return
        # the report covers every mutant (thousands in a real package): rebuilt only when a kill or a newly
        # reached site changed it (both only grow), or at the end, where its run counter is brought up to date
        version = (len(analysis.kills), len(analysis.reached))
        now = time.perf_counter()
        # and at most every REPORT_EVERY seconds: it is derived from the corpus index (resume reads kills from
        # there), and turning it into indented JSON costs tens of milliseconds, a tenth of a second-long slice
        if final or (version != self._mutants_written and now - self._mutants_at >= REPORT_EVERY):
            self._mutants_at = now
            self.report = analysis.report()
            write_json(self.out / "mutants.json", self.report)
            self._mutants_written = version

    def write_state(self, config: dict[str, Any], stats: dict[str, Any]) -> None:
        """Write state.json: the campaign's configuration and counters."""
        if self.out is not None:
            write_json(self.out / "state.json", {"config": config, "stats": stats})

    def write_failure(self, name: str, choices: bytes, rendered: str, meta: dict[str, Any]) -> None:
        """Write failures/NAME.bin (the choices), .txt (the input) and .json (what went wrong)."""
        if self.out is None:
            return
        folder = self.out / "failures"
        write_atomic(folder / f"{name}.bin", choices)
        write_atomic(folder / f"{name}.txt", rendered + "\n")
        write_json(folder / f"{name}.json", meta)

    def read_state(self) -> dict[str, Any]:
        """The counters of state.json (empty when absent)."""
        path = self.out / "state.json" if self.out else None
        if path is None or not path.is_file():
            return {}
        try:
            stats = json.loads(path.read_text())["stats"]
            if not isinstance(stats, dict) or not all(isinstance(v, int | float) for v in stats.values()):
                raise ValueError("its counters are not numbers")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise _corrupt(path, str(exc) or type(exc).__name__,
                           "delete it to resume with counters from zero (the corpus is kept)") from None
        return stats

    def read_plot(self) -> list[dict[str, Any]]:
        """The rows of plot_data.csv (empty when absent); they become `plot_rows`."""
        path = self.out / "plot_data.csv" if self.out else None
        if path is None or not path.is_file():
            return []
        try:
            reader = csv.DictReader(io.StringIO(path.read_text()))
            rows = list(reader)
            if tuple(reader.fieldnames or ()) != PLOT_FIELDS:
                raise ValueError(f"its header is not {','.join(PLOT_FIELDS)}")
            for row in rows:
                for value in row.values():
                    float(value)  # raises on a garbled (or short: None) cell
        except (ValueError, TypeError, UnicodeDecodeError, csv.Error) as exc:
            raise _corrupt(path, str(exc), "delete it to start the plot afresh (nothing else is lost)") from None
        self.plot_rows = rows
        return rows

    def read_failures(self) -> tuple[dict[tuple[str, str], str], int]:
        """The failures found so far, (exception, location) -> name, and the next free failure number.

        The number is above every failure_N file, even one whose .json was never written, so no
        failure is written over.
        """
        failures: dict[tuple[str, str], str] = {}
        next_number = 0
        if self.out is None:
            return failures, next_number
        folder = self.out / "failures"
        for meta_path in sorted(folder.glob("failure_*.json")):
            try:
                meta = json.loads(meta_path.read_text())
                key = (str(meta["exception"]), str(meta["location"]))
                number = int(meta_path.stem.removeprefix("failure_"))
            except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
                raise _corrupt(meta_path, str(exc), "delete it (and its .bin and .txt) to resume") from None
            failures.setdefault(key, meta_path.stem)
            next_number = max(next_number, number + 1)
        for other in folder.glob("failure_*.*"):  # a .bin or .txt whose .json was never written
            stem = other.stem.removeprefix("failure_")
            if stem.isdigit():
                next_number = max(next_number, int(stem) + 1)
        return failures, next_number
