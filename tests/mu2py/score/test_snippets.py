"""A mutant swapped in from its statement's snippet changes exactly the functions the whole mutated module would."""


import pytest

from mu2py.engine.swap import CodeSwap, SwapError
from mu2py.score import hosted
from mu2py.score.catalog import catalog_of
from tests.mu2py.score.conftest import one_module_package

SOURCE = '''from __future__ import annotations

import functools
from collections import OrderedDict

LIMIT = 3


class Base:
    def size(self, extra=0):
        return len(self.items) + extra


class Box(Base):
    __marker = object()

    def __init__(self, items=()):
        self.items = list(items)

    def full(self) -> bool:
        return self.size() >= LIMIT and not (self.items == [])

    def get(self, i, default=__marker):
        try:
            return self.items[i]
        except IndexError:
            if default is self.__marker:
                raise
            return default

    def described(self):
        return super().size() * 2

    class Inner:
        def twice(self, n):
            return functools.reduce(lambda a, b: a + b, [n, n])


def table(n):
    def scale(k):
        return k * n + LIMIT
    return OrderedDict((k, scale(k)) for k in range(n))
'''


@pytest.fixture
def host(tmp_path):
    with one_module_package(tmp_path, "snip_pkg", "box", SOURCE) as (module, spec, program):
        swap = CodeSwap(module, compile(SOURCE, module.__file__, "exec", dont_inherit=True))
        yield program, hosted.Host(spec, program=catalog_of(program), swaps={"snip_pkg.box": swap})


def _plan(swap, *codes):
    try:
        # code objects compare by value: the same bytecode, constants, names and line table
        return sorted(((fn.__qualname__, code) for fn, code in swap.plan(*codes)), key=lambda pair: pair[0])
    except SwapError as exc:
        return str(exc).split(":")[0]


def test_every_snippet_swaps_the_functions_the_whole_module_swaps(host):
    program, state = host
    swap = state.swaps["snip_pkg.box"]
    snipped = 0
    for index, m in enumerate(program.mutants):
        if index in program.static:
            continue
        codes = hosted.snippet(state, index)
        if codes is None:
            continue
        snipped += 1
        whole = compile(program.mutant_source(m.id), m.file, "exec", dont_inherit=True)
        assert _plan(swap, *codes) == _plan(swap, whole), m.id
    assert snipped > 20
