"""The live half of `mu2py.cli.progress.Meter`: rich's Progress with the meter's columns (imported only when a
terminal shows it, so that a command's start-up and its plain lines do without rich.progress)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.progress import BarColumn, Progress, ProgressBar, ProgressColumn, Task, TimeRemainingColumn
from rich.table import Column
from rich.text import Text

from mu2py.cli.progress import duration

if TYPE_CHECKING:
    from mu2py.cli.progress import Meter

REFRESH_PER_SECOND = 4


class LiveProgress(Progress):
    """rich's Progress with the meter's columns, and an optional renderable under its line."""

    def __init__(self, meter: Meter, console: Console) -> None:
        columns: list[ProgressColumn] = [
            _Description(table_column=Column(no_wrap=True, overflow="ellipsis", max_width=32)),
            _Bar(meter, bar_width=24),
            _Count(table_column=Column(no_wrap=True, justify="right")),
            _Elapsed(meter, table_column=Column(no_wrap=True)),
            _Budget(meter, table_column=Column(no_wrap=True)),
        ]
        self.detail: RenderableType | None = None  # set before rich's __init__, which renders once
        # stdout is not redirected into the display: a command that runs the program under test in its own process
        # has pointed sys.stdout elsewhere (streams.own_stdout), and a redirect would show the program's prints
        super().__init__(*columns, console=console, transient=True, refresh_per_second=REFRESH_PER_SECOND,
                         redirect_stdout=False, redirect_stderr=True)

    def get_renderables(self) -> Iterable[RenderableType]:
        """The progress line, the note under it (its own line: a long one cuts no column short), then the detail
        renderable (a table of counters) if there is one."""
        yield self.make_tasks_table(self.tasks)
        note = str(self.tasks[0].fields.get("note", "")) if self.tasks else ""
        if note:
            yield Text(note, no_wrap=True, overflow="ellipsis")
        if self.detail is not None:
            yield self.detail


class _Description(ProgressColumn):
    def render(self, task: Task) -> Text:
        """The task's description as is (no markup: a phase or a function name may hold brackets)."""
        return Text(task.description, style="progress.description")


class _Bar(BarColumn):
    """The done/total bar; with no known total, the share of a time budget spent (else rich's pulse)."""

    def __init__(self, meter: Meter, bar_width: int) -> None:
        super().__init__(bar_width=bar_width)
        self.meter = meter

    def render(self, task: Task) -> ProgressBar:
        """The bar for `task`: its share done, else the share of the time budget spent."""
        if task.total is None and self.meter.seconds:
            spent = self.meter.budget_spent()
            return ProgressBar(total=self.meter.seconds, completed=min(spent, self.meter.seconds),
                               width=self.bar_width, style=self.style, complete_style=self.complete_style,
                               finished_style=self.finished_style)
        return super().render(task)


class _Count(ProgressColumn):
    def render(self, task: Task) -> Text:
        """`12/30 mutants judged`, or `26675 trials` without a total."""
        unit = task.fields.get("unit", "")
        if task.total is None and not unit:  # a phase that counts nothing: its bar pulses, no "0" beside it
            return Text("")
        done = f"{task.completed:.0f}" if task.total is None else f"{task.completed:.0f}/{task.total:.0f}"
        return Text(f"{done} {unit}".rstrip(), style="progress.download")


class _Elapsed(ProgressColumn):
    def __init__(self, meter: Meter, table_column: Column | None = None) -> None:
        super().__init__(table_column=table_column)
        self.meter = meter

    def render(self, task: Task) -> Text:
        """`elapsed 8s`, on the meter's clock (a resumed campaign's earlier runs included)."""
        return Text(f"elapsed {duration(self.meter.elapsed)}", style="progress.elapsed")


class _Budget(ProgressColumn):
    """`budget 20s, 12s left` under a time budget; else rich's ETA when the total is known (nothing otherwise)."""

    def __init__(self, meter: Meter, table_column: Column | None = None) -> None:
        super().__init__(table_column=table_column)
        self.meter = meter
        self.eta = TimeRemainingColumn(compact=True)

    def render(self, task: Task) -> Text:
        """The budget and the time left, else `ETA 00:12` for a known total, else nothing."""
        budget = self.meter.budget_text()
        if budget:
            return Text(budget, style="progress.remaining")
        if task.total is None:
            return Text("")
        return Text.assemble(("ETA ", "progress.remaining"), self.eta.render(task))
