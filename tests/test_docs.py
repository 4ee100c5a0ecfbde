"""The docs (README.md and docs/*.md) say what the code does: every command shown runs or parses, the site builds.

Conventions of the pages' fenced blocks:

- ```console: each line starting with `$ ` is a command, run here in a scratch copy of the checkout (a git
  repository of one commit) with `mu2py`, `bonsai`, `mkdocs` and `python` being this checkout's; every block
  starts at the copy's root, and `$ cd DIR` moves the rest of its block. A command ends with exit 0, or with the
  status a trailing `# exit N` names. A leading `python3 -m pip install ... &&` is checked (the extras exist)
  rather than run: installing is CI's first step, not the page's. A ```python block whose first line is
  `# NAME.py, ...` is written to NAME.py at the root before the page's commands run.
- ```bash: commands too long to run here (benchmarks, clusters, a whole suite, a project that is not here);
  each is parsed instead: `mu2py` and `bonsai` with their real argument parsers, `python benchmarks/X.py` with
  that script's own parser (stopped right after parsing), `pip install` against the extras of pyproject.toml,
  `pytest` against the command .ci/run runs.
- Any other block (```text, ```yaml, ```toml, ...) is not a command; the CI example's yaml runs in
  tests/mu2py/score/test_ci_example.py, the API example in tests/mu2py/test_api.py.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
PIP = re.compile(r"^python3? -m pip install (?P<args>[^&]*?)\s*&&\s*(?P<rest>.+)$")
# each docs command's time in the run test is printed with -s; all of them stay under about 60 s on 2 cores
# once, on 3.13: CI runs the 3.11 and 3.13 suites side by side, and the 3.11 one holds more tests of its own
SLOW = pytest.mark.skipif(sys.version_info < (3, 13), reason="the docs' commands run once, on 3.13: CI's time")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path) -> list[tuple[str, str]]:
    """The fenced blocks of a page: (language, text)."""
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


def console_blocks(page: Path) -> list[list[str]]:
    """The `$ ` commands of each ```console block of a page, one list per block."""
    return [[line[2:].strip() for line in text.splitlines() if line.startswith("$ ")]
            for lang, text in blocks(page) if lang == "console"]


def bash_commands(page: Path) -> list[str]:
    """The commands of the ```bash blocks of a page (one per line; comments and blank lines left out)."""
    return [line.strip() for lang, text in blocks(page) if lang in ("bash", "sh")
            for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _prose(page: Path) -> str:
    return BLOCK.sub("", page.read_text(encoding="utf-8"))


# --- the site, its links, the generated configuration reference ---------------------------------------------


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """How CI builds the site: strict, so that a broken link between pages (or to an anchor) fails."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file() and (tmp_path / "site" / "configuration" / "index.html")


def test_every_page_is_in_the_nav() -> None:
    import yaml

    def files(entry: object) -> list[str]:
        if isinstance(entry, str):
            return [entry]
        if isinstance(entry, list):
            return [f for item in entry for f in files(item)]
        return [f for value in dict(entry).values() for f in files(value)]

    nav = files(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"])
    assert sorted(nav) == sorted(p.name for p in PAGES if p.parent.name == "docs")


def test_readme_links_resolve() -> None:
    """The README is not part of the site: its relative links are checked here."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _prose(ROOT / "README.md"))
    local = [link for link in links if "://" not in link]
    assert local and all((ROOT / link).exists() for link in local), [x for x in local if not (ROOT / x).exists()]


def _gen_config():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import gen_config
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return gen_config


def test_configuration_reference_is_what_the_code_gives() -> None:
    """docs/configuration.md's tables are generated from mu2py/target/project.py: `python docs/gen_config.py`."""
    gen = _gen_config()
    page = gen.PAGE.read_text(encoding="utf-8")
    assert page == gen.page_with(page, gen.render()), "docs/configuration.md is out of date: python docs/gen_config.py"


def test_configuration_lists_every_key() -> None:
    from mu2py.target.project import COMMANDS, SHARED

    generated = _gen_config().render()
    for key in [*SHARED, *(k for options in COMMANDS.values() for k in options)]:
        assert f"| `{key}` |" in generated


def test_configuration_examples_are_valid(tmp_path: Path) -> None:
    from mu2py.target.project import load_config

    examples = [text for page in PAGES for lang, text in blocks(page) if lang == "toml"]
    assert examples
    for text in examples:
        (tmp_path / "pyproject.toml").write_text(text)
        assert load_config(tmp_path)


# --- commands that are parsed -------------------------------------------------------------------------------


def _parsers() -> dict[str, argparse.ArgumentParser]:
    from bonsai.cli import build_parser as bonsai_parser
    from mu2py.cli.main import build_parser as mu2py_parser

    return {"mu2py": mu2py_parser(), "bonsai": bonsai_parser()}


def _parse_error(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """What the real parser says about `argv` (None: it parses)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as exc:
        return err.getvalue().strip() or f"exit {exc.code}"
    return None


def _pip_error(args: list[str]) -> str | None:
    """Whether `pip install ARGS` names this project (with extras it has) or mu2py from a git URL."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for arg in args:
        if arg in ("-e", "--quiet", "-q", "--upgrade"):
            continue
        if arg.startswith("."):
            wanted = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", arg)
            if wanted is None:
                return f"not this project: {arg}"
            unknown = [e for e in (wanted.group(1) or "").split(",") if e and e not in extras]
            if unknown:
                return f"no extra {unknown} in pyproject.toml"
        elif not arg.startswith("mu2py @ git+"):
            return f"not this project: {arg}"
    return None


def _plugin_options() -> dict[str, bool]:
    """The options mu2py's pytest plugin adds, and whether each takes a value."""
    from mu2py.cli import pytest_plugin

    found: dict[str, bool] = {}

    class Group:
        def addoption(self, *names: str, **kwargs: object) -> None:
            found.update({name: kwargs.get("action") not in ("store_true", "store_false") for name in names})

    class Parser:
        def getgroup(self, *args: object, **kwargs: object) -> Group:
            return Group()

    pytest_plugin.pytest_addoption(Parser())  # type: ignore[arg-type]
    return found


def _pytest_error(argv: list[str]) -> str | None:
    """The README's test command is the one .ci/run runs; any other shows mu2py's plugin with its own options."""
    if "python -m pytest " + " ".join(argv) in (ROOT / ".ci" / "run").read_text():
        return None
    plugin = _plugin_options()
    args = iter(argv)
    for arg in args:
        name = arg.split("=", 1)[0]
        if name in ("-k", "-m"):
            next(args, None)
        elif name.startswith("-") and name not in ("-q", "-x", "-v"):
            if name not in plugin:
                return f"no check for pytest's {name} (mu2py's plugin has {sorted(plugin)})"
            if plugin[name] and "=" not in arg and next(args, None) is None:
                return f"{name} needs a value"
    return None


def _all_bash() -> list[tuple[str, str]]:
    return [(_name(page), command) for page in PAGES for command in bash_commands(page)]


def _benchmark_errors(jobs: list[tuple[str, list[str]]]) -> list[str]:
    """Each benchmark script run up to its argument parsing (the real parser), in one interpreter."""
    runnable, errors = [], []
    for script, argv in jobs:
        source = ROOT / script
        if not source.is_file():
            errors.append(f"{script}: no such benchmark")
        elif "argparse" in source.read_text():
            runnable.append((script, argv))
        elif argv:  # a script without a parser takes no arguments; running it would run the benchmark
            errors.append(f"{script} takes no arguments, given {argv}")
    if not runnable:
        return errors
    boot = r"""
import argparse, json, runpy, sys
class Parsed(BaseException):
    pass
real = argparse.ArgumentParser.parse_args
def parse_args(self, args=None, namespace=None):
    real(self, args, namespace)
    raise Parsed
argparse.ArgumentParser.parse_args = parse_args
errors = []
for script, argv in json.loads(sys.argv[1]):
    sys.argv = [script, *argv]
    try:
        runpy.run_path(script, run_name="__main__")
    except Parsed:
        continue
    except SystemExit as exc:
        errors.append(f"{script} {argv}: exit {exc.code}")
    except Exception as exc:
        errors.append(f"{script} {argv}: {exc!r}")
    else:
        errors.append(f"{script} {argv}: never parsed its arguments")
print(json.dumps(errors))
"""
    done = subprocess.run([sys.executable, "-c", boot, json.dumps(runnable)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return errors + json.loads(done.stdout.strip().splitlines()[-1])


def test_bash_commands_parse() -> None:
    parsers = _parsers()
    errors, benchmarks = [], []
    commands = _all_bash()
    assert commands
    for page, command in commands:
        for part in command.split("&&"):
            argv = shlex.split(part)
            program, args = argv[0], argv[1:]
            if program in parsers:
                error = _parse_error(parsers[program], args)
            elif program in ("python", "python3") and args[:3] == ["-m", "pip", "install"]:
                error = _pip_error(args[3:])
            elif program in ("python", "python3") and args[:2] == ["-m", "pytest"]:
                error = _pytest_error(args[2:])
            elif program == "pytest":
                error = _pytest_error(args)
            elif program in ("python", "python3") and args and args[0].startswith("benchmarks/"):
                benchmarks.append((args[0], args[1:]))
                error = None
            else:
                error = "no check for this program: run it in a console block, or add a check here"
            if error:
                errors.append(f"{page}: {part.strip()}: {error}")
    errors += _benchmark_errors(benchmarks)
    assert not errors, "\n".join(errors)


def test_the_parse_check_catches_a_wrong_option() -> None:
    parsers = _parsers()
    assert _parse_error(parsers["mu2py"], ["score", "--paths", "src", "--fail-undr", "80"])
    assert _parse_error(parsers["bonsai"], ["run", "g.lark", "--bounds", "2,2,2"])
    assert _parse_error(parsers["mu2py"], ["fuzz", "m:d", "--trials", "many"])
    assert _pip_error(["-e", ".[tests]"]) and not _pip_error(["-e", ".[test]"])
    assert _pytest_error(["--mu2py", "--mu2py-path", "src"]) and not _pytest_error(["--mu2py-paths", "src"])
    assert _benchmark_errors([("benchmarks/equal_time.py", ["--seedz", "1"])])


def _options(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    """The options of each subcommand ('' for the program's own)."""
    found: dict[str, set[str]] = {"": set()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = {s for a in sub._actions for s in a.option_strings}
        else:
            found[""].update(action.option_strings)
    return found


def test_options_named_in_the_text_exist() -> None:
    """Inline `mu2py CMD ... --opt` spans name options CMD has; every other `--opt` is some command's."""
    options = {program: _options(parser) for program, parser in _parsers().items()}
    known = set().union(*(opts for table in options.values() for opts in table.values()))
    # options of the other programs the pages show: pytest, Hypothesis's pytest plugin, pip, mkdocs, benchmarks
    known |= {"--hypothesis-seed", "--deselect", "--strict", "--variants", "--checkout", *_plugin_options()}
    known |= {option for _, command in _all_bash() for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", command)}
    errors = []
    for page in PAGES:
        prose = _prose(page)
        for span in re.findall(r"`([^`\n]+)`", prose):
            words = span.split()
            if len(words) > 1 and words[0] in options and words[1] in options[words[0]]:
                have = options[words[0]][words[1]] | options[words[0]][""]
                errors += [f"{_name(page)}: `{span}`: no {o}" for o in re.findall(r"(?<![\w-])--[a-z][\w-]*", span)
                           if o not in have]
        errors += [f"{_name(page)}: unknown option {o}" for o in re.findall(r"(?<![\w-])--[a-z][\w-]*", prose)
                   if o not in known]
    assert not errors, "\n".join(sorted(set(errors)))


# --- commands that run --------------------------------------------------------------------------------------


def _checkout_files() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A scratch copy of the checkout, committed in a git repository of its own, and how to run commands there.

    `run(command, cwd)` runs one docs command (bash -e) with this checkout's `mu2py`, `bonsai`, `mkdocs` and
    `python` first on PATH; a command already run in the same folder is not run again (pages share examples).
    """
    base = tmp_path_factory.mktemp("docs")
    root = base / "checkout"
    files = _checkout_files()
    if files:
        for name in files:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    else:  # not a git checkout (an unpacked sdist)
        shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns(".git", ".venv*", ".ci-venv*", "*.egg-info",
                                                                  "__pycache__", ".mu2py-cache", "site", "out"))
    bin_dir = base / "bin"
    bin_dir.mkdir()
    for name, module in (("mu2py", "mu2py"), ("bonsai", "bonsai"), ("mkdocs", "mkdocs"), ("python", None),
                         ("python3", None)):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {"-m " + module if module else ""} "$@"\n')
        shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(root),
           "GIT_AUTHOR_NAME": "docs", "GIT_AUTHOR_EMAIL": "docs@example.invalid", "GIT_COMMITTER_NAME": "docs",
           "GIT_COMMITTER_EMAIL": "docs@example.invalid"}
    for step in (["git", "init", "-q"], ["git", "add", "-A"],
                 ["git", "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "checkout"]):
        subprocess.run(step, cwd=root, env=env, check=True, capture_output=True, timeout=120)
    done: set[tuple[str, str]] = set()
    timings: list[tuple[float, str]] = []

    def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str] | None:
        key = (str(cwd), command)
        if key in done:
            return None
        start = time.perf_counter()
        result = subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                                timeout=300)
        timings.append((time.perf_counter() - start, command))
        done.add(key)
        return result

    yield root, run
    print(f"\ndocs commands: {sum(t for t, _ in timings):.1f} s in all")
    for seconds, command in sorted(timings, reverse=True):
        print(f"  {seconds:5.1f} s  {command}")


def _write_files(page: Path, root: Path) -> None:
    """The page's ```python blocks that name a file (`# NAME.py, ...` on their first line), written at `root`."""
    for lang, text in blocks(page):
        first = text.splitlines()[0] if text.strip() else ""
        named = re.match(r"#\s*([\w/]+\.py)\b", first) if lang == "python" else None
        if named:
            (root / named.group(1)).write_text(text, encoding="utf-8")


def test_console_blocks_follow_the_convention() -> None:
    """Every console block has commands, and only ever `$ ` lines (no output to keep true by hand)."""
    for page in PAGES:
        for lang, text in blocks(page):
            if lang == "console":
                lines = [line for line in text.splitlines() if line.strip()]
                assert lines and all(line.startswith("$ ") for line in lines), f"{_name(page)}: {text}"


@SLOW
@pytest.mark.parametrize("page", [p for p in PAGES if console_blocks(p)], ids=_name)
def test_console_commands_run(page: Path, workspace) -> None:
    root, run = workspace
    _write_files(page, root)
    for block in console_blocks(page):
        cwd = root
        for line in block:
            expected = 0
            if found := EXIT.search(line):
                expected, line = int(found.group(1)), line[: found.start()]
            if line.startswith("cd "):
                cwd = (cwd / line[3:].strip()).resolve()
                assert cwd.is_dir(), line
                continue
            if pip := PIP.match(line):
                assert _pip_error(shlex.split(pip.group("args"))) is None, line
                line = pip.group("rest")
            done = run(line, cwd)
            if done is not None:
                assert done.returncode == expected, (f"{_name(page)}: `{line}` exited {done.returncode}, "
                                                     f"not {expected}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
