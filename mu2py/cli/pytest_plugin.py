"""`pytest --mu2py`: after a passing test session, the mutation score of the tests it selected (`mu2py score`).

Registered through the `pytest11` entry point `mu2py` (pyproject.toml), so every pytest session of an environment
that installs mu2py loads this module.  Loading it imports nothing but pytest; without `--mu2py` the plugin only
adds its options.  mu2py's machinery is imported when `--mu2py` is given, and then:

- before any test runs, the project's `[tool.mu2py]` is read from the pytest root (`pyproject.toml` there) and the
  code to mutate resolved (`--mu2py-paths`, else its `paths` or `package`): a missing one is a one-line usage error;
- after the session, if it passed, the tests it ran (its items after `-k`, `-m`, `--deselect` and paths; node ids,
  in pytest's order) are scored by `mu2py.api.score`, as `mu2py score --tests NODEIDS...` scores them in the root;
- the terminal summary holds the per-file table and the score line of `mu2py score`, and the session fails
  (exit status 1) when the score is under `--mu2py-fail-under` (else `[tool.mu2py.score] fail_under`).  A session
  that failed is not scored; the summary says so.

Invariant: no pytest session mu2py starts ever scores.  mu2py's jobs set `MU2PY_RUNNING` (`mu2py.api.running`)
while they run, so every process they start inherits it, and `--mu2py` there (a suite whose `addopts` or
`PYTEST_ADDOPTS` hold it) does nothing: the outer session scores, never its own workers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mu2py.api import ScoreProgress, ScoreResult

RUNNING_ENV = "MU2PY_RUNNING"  # `mu2py.api.RUNNING_ENV`, named here so that loading the plugin imports no API


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--mu2py` and its options (they do nothing without it)."""
    group = parser.getgroup("mu2py", "mutation score of the selected tests (mu2py score)")
    group.addoption("--mu2py", action="store_true", default=False,
                    help="after the tests pass, score them by mutation against the code [tool.mu2py] names "
                         "(paths or package in pyproject.toml); the score table is in the summary")
    group.addoption("--mu2py-paths", action="append", metavar="SRC",
                    help="with --mu2py: source files or package folders to mutate instead of [tool.mu2py]'s "
                         "(repeat the option or separate with commas)")
    group.addoption("--mu2py-fail-under", metavar="PCT",
                    help="with --mu2py: fail the session when the mutation score (in percent) is below PCT "
                         "(default: [tool.mu2py.score] fail_under)")
    group.addoption("--mu2py-workers", metavar="N",
                    help="with --mu2py: worker processes judging mutants (default: [tool.mu2py.score] workers, else 1)")
    group.addoption("--mu2py-no-cache", action="store_true", default=False,
                    help="with --mu2py: judge every mutant again (default: reuse ROOT/.mu2py-cache/score.json)")


def pytest_configure(config: pytest.Config) -> None:
    """With `--mu2py` (outside mu2py's own runs): check what to mutate now, and register the scorer."""
    if not config.option.mu2py:
        return
    if os.environ.get(RUNNING_ENV) or hasattr(config, "workerinput"):
        return  # a session a mu2py job started (a scoring worker), or an xdist worker: the outer session scores
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--mu2py does not run under pytest-xdist's -n (the selected tests are known only "
                                "to its workers): run without -n, and give mu2py workers with --mu2py-workers N")
    config.pluginmanager.register(Scorer(_settings(config)), "mu2py-scorer")


class Settings:
    """What `--mu2py` scores: the project root, the code to mutate (None: `[tool.mu2py]`'s) and score's options.

    (A plain class: a dataclass would cost every pytest session a millisecond to load this module.)
    """

    def __init__(self, root: Path, paths: list[str] | None, fail_under: float | None, workers: int | None,
                 no_cache: bool) -> None:
        self.root, self.paths, self.fail_under, self.workers, self.no_cache = root, paths, fail_under, workers, no_cache


def _settings(config: pytest.Config) -> Settings:
    """The options of `--mu2py`, checked, and the code to mutate resolved: a `pytest.UsageError` naming the fix."""
    from mu2py.errors import UserError
    from mu2py.target.project import load_config, modules_to_mutate

    option = config.option
    paths = [p.strip() for given in option.mu2py_paths or () for p in given.split(",") if p.strip()] or None
    fail_under = _number("--mu2py-fail-under", option.mu2py_fail_under, float, "a percentage between 0 and 100",
                         lambda v: 0 <= v <= 100)
    workers = _number("--mu2py-workers", option.mu2py_workers, int, "a positive integer", lambda v: v >= 1)
    root = config.rootpath
    try:
        project = load_config(root)
        if not paths and not project.get("paths") and not project.get("package"):
            raise UserError(f"no code to mutate: set paths = [\"src/pkg\"] (or package = \"pkg\") under [tool.mu2py] "
                            f"in {root / 'pyproject.toml'}, or give --mu2py-paths SRC")
        # resolved now, so that a wrong path is named before the tests run, not after
        modules_to_mutate(root, project, None, paths, list(project.get("skip", [])))
    except UserError as exc:
        raise pytest.UsageError(f"--mu2py: {exc}") from None
    return Settings(root, paths, fail_under, workers, bool(option.mu2py_no_cache))


def _number(option: str, text: str | None, kind: type, what: str, valid: Any) -> Any:
    """`text` (None: not given) as a `kind` that `valid` accepts (a trailing % allowed), else a usage error."""
    if text is None:
        return None
    try:
        value = kind(text.strip().removesuffix("%"))
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise pytest.UsageError(f"{option} must be {what}, got {text!r}")
    return value


class Scorer:
    """The plugin object `--mu2py` registers: records the selected tests, scores them, reports in the summary."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.selected: list[str] = []  # the node ids the session ran, in its order
        self.result: ScoreResult | None = None
        self.note: str | None = None  # why there is no score (the session failed, scoring failed)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Keep the node ids of the items left after every deselection (`-k`, `-m`, `--deselect`, plugins)."""
        self.selected = [item.nodeid for item in session.items]

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Score the selected tests if the session passed; a score under the bar fails the session."""
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            self.note = "not scored: no tests were selected"
            return
        if exitstatus != pytest.ExitCode.OK:
            self.note = (f"not scored: the test session did not pass (exit status {int(exitstatus)}); "
                         "a mutation score needs a suite that passes")
            return
        if session.config.option.collectonly:
            self.note = "not scored: --collect-only ran no tests"
            return
        from mu2py.api import score
        from mu2py.errors import UserError

        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        show = _Progress(reporter, len(self.selected))
        s = self.settings
        try:
            self.result = score(s.root, paths=s.paths, tests=self.selected, workers=s.workers,
                                fail_under=s.fail_under, no_cache=s.no_cache, progress=show)
        except UserError as exc:
            self.note = f"error: {exc}"
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        except KeyboardInterrupt:
            self.note = "interrupted while scoring (verdicts so far are cached)"
            session.exitstatus = pytest.ExitCode.INTERRUPTED
        else:
            if self.result.shortfall:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        finally:
            show.done()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The score table and line (as `mu2py score` prints them), the best survivors, and the bar's verdict."""
        terminalreporter.write_sep("=", "mu2py mutation score")
        if self.result is None:
            terminalreporter.write_line(f"mu2py: {self.note or 'not scored'}", red=True)
            return
        # on a terminal the table fits its width; in a log it takes its content's width, never wrapping a path
        width = terminalreporter.config.get_terminal_writer().fullwidth if terminalreporter.isatty() else 100_000
        for line in summary_lines(self.result, width, hint=not self.settings.no_cache):
            terminalreporter.write_line(line)
        if self.result.shortfall:
            terminalreporter.write_line(f"mu2py: {self.result.shortfall}", red=True, bold=True)


SURVIVORS_SHOWN = 10


def summary_lines(result: ScoreResult, width: int, hint: bool = True) -> list[str]:
    """What `--mu2py` prints of a score: the per-file table, the first survivors, the score line (plain text);
    with `hint`, how to see a survivor's diff (`mu2py show` reads the report the cache folder keeps)."""
    import io

    from rich.console import Console

    from mu2py.cli.score import score_line, summary_table, survivor_note, time_line
    from mu2py.mutants.model import one_line
    from mu2py.score.reports import nothing_judged

    report: Any  # an api.Report (dict[str, object]), read here by its known keys
    report, root = result.report, result.root
    s: dict[str, Any] = report["summary"]
    nothing = nothing_judged(s)
    if nothing is not None:
        return [nothing]
    out = io.StringIO()
    Console(file=out, width=max(width, 40), color_system=None, highlight=False, markup=False,
            soft_wrap=width > 1000).print(summary_table(report, root))
    lines = out.getvalue().rstrip("\n").splitlines()
    by_id = {m["id"]: m for m in report["mutants"]}
    survivors = [by_id[i] for i in report["triage"]]
    if survivors:
        lines.append("survivors, most worth a look first" + (" (`mu2py show ID`: the diff)" if hint else "") + ":")
    for m in survivors[:SURVIVORS_SHOWN]:
        where = Path(m["file"])
        shown = where.relative_to(root) if where.is_relative_to(root) else where
        change = f"{one_line(m['original'])} → {one_line(m['mutated'])}"
        lines.append(f"  {shown}:{m['line']} {change} ({survivor_note(m)}) [{m['id']}]")
    if len(survivors) > SURVIVORS_SHOWN:
        lines.append(f"  ... and {len(survivors) - SURVIVORS_SHOWN} more survivors (mu2py score --html for all)")
    lines.append(score_line(s))
    spent = time_line(s)
    return [*lines, spent] if spent else lines


class _Progress:
    """Where scoring is, on pytest's terminal: one line rewritten in place on a terminal, else a line per phase
    and every few seconds."""

    def __init__(self, reporter: Any, tests: int) -> None:
        from mu2py.cli.progress import Throttle

        self.reporter = reporter
        self.live = reporter is not None and bool(reporter.isatty())
        self.throttle = Throttle()
        if reporter is not None:
            writer = reporter.config.get_terminal_writer()
            if writer.width_of_current_line:  # `-q`: the progress dots' line is not ended yet
                writer.line()
            reporter.write_sep("-", f"mu2py: scoring {tests} selected tests by mutation")

    def __call__(self, p: ScoreProgress) -> None:
        """Show one progress event."""
        if self.reporter is None:
            return
        line = f"mu2py [{p.phase}] {p.judged}/{p.total} mutants judged ({p.cached} from cache)"
        if p.judged:
            line += f"; {p.tally()}"
        if self.live:
            self.reporter.rewrite(line, erase=True)
        elif self.throttle.due(p.phase):
            self.reporter.write_line(f"{line}, {self.throttle.elapsed:.0f} s")

    def done(self) -> None:
        """End the rewritten line, so the summary starts on a line of its own."""
        if self.live:
            self.reporter.write_line("")
