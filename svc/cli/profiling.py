"""`--profile`/`--profile-output`: the Python profilers that match upstream's profile kinds.

cpu uses cProfile (pstats format), heap uses tracemalloc (a snapshot dump), goroutine writes every
thread's stack; threadcreate, block, mutex and trace have no Python equivalent and are refused with
a clear message rather than silently producing nothing.
"""

from __future__ import annotations

import cProfile
import sys
import threading
import traceback
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from svc.cli.errors import CliError

UNSUPPORTED = ("threadcreate", "block", "mutex", "trace")


def _stopper(kind: str, output: str) -> Callable[[], None]:
    """Start the profiler of `kind`; return what stops it and writes `output`."""
    if kind == "cpu":
        profiler = cProfile.Profile()
        profiler.enable()

        def stop_cpu() -> None:
            profiler.disable()
            profiler.dump_stats(output)

        return stop_cpu
    if kind == "heap":
        tracemalloc.start()

        def stop_heap() -> None:
            tracemalloc.take_snapshot().dump(output)
            tracemalloc.stop()

        return stop_heap

    def dump_threads() -> None:
        frames = sys._current_frames()
        with open(output, "w") as handle:
            for thread in threading.enumerate():
                frame = frames.get(thread.ident or 0)
                handle.write(f"thread {thread.name}:\n")
                if frame is not None:
                    handle.writelines(traceback.format_stack(frame))

    return dump_threads


@contextmanager
def profiled(kind: str, output: str) -> Iterator[None]:
    if kind in UNSUPPORTED:
        raise CliError(f'profile "{kind}" has no Python equivalent; supported: none, cpu, heap, goroutine')
    stop = _stopper(kind, output)
    try:
        yield
    finally:
        stop()
