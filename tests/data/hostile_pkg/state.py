"""Round-3 hazards: interpreter-wide state a run leaves behind, behind guards that plausible mutants open
(`n > 1000` -> `n >= 1000`, inputs 995-1000).

A lowered recursion limit, the collector told to keep everything, descriptors left open, an exit
handler, a KeyboardInterrupt, an endless loop in an asyncio task nobody awaits and a timeout
swallowed by a bare `except`: every later run must be judged as a fresh interpreter judges it.
"""

import asyncio
import atexit
import gc

from hostile_pkg import state_helpers


def lowered(n):
    if n > 1000:
        state_helpers.lower_recursion_limit()
    return state_helpers.depth(300) + n  # pragma: no mutate


def keeps_garbage(n):
    if n > 1000:
        gc.set_debug(gc.DEBUG_SAVEALL)
    return state_helpers.garbage_after_collect() + n  # pragma: no mutate


def leaks_descriptors(n):
    if n > 1000:
        state_helpers.leak_descriptors(120)
    return state_helpers.read_null() + n  # pragma: no mutate


def registers_exit(n):
    if n > 1000:
        atexit.register(state_helpers.shout_at_exit)
    return n + 4  # pragma: no mutate


def interrupts(n):
    if n > 1000:
        raise KeyboardInterrupt  # pragma: no mutate
    return n + 5  # pragma: no mutate


async def _count(n):
    while n > 0:
        n -= 1
    return n


def spins(n):
    async def main():  # pragma: no mutate
        task = asyncio.get_running_loop().create_task(_count(n))  # pragma: no mutate
        await asyncio.sleep(0)  # pragma: no mutate
        return task.done()  # pragma: no mutate

    return asyncio.run(main())  # pragma: no mutate


def gives_up(n):
    try:  # pragma: no mutate
        while n > 0:
            n -= 7
        return 0
    except BaseException:  # pragma: no mutate
        return -1  # pragma: no mutate
