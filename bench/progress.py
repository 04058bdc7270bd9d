"""Progress lines on stderr, so stdout carries only the final table."""

from __future__ import annotations

import os
import sys
import time

# A scenario run in a child process counts from the parent's start (the monotonic clock is the
# machine's, not the process's).
STARTED_VARIABLE = "SVC_BENCH_STARTED"
STARTED = float(os.environ.get(STARTED_VARIABLE) or time.monotonic())


def progress(message: str) -> None:
    print(f"[bench {time.monotonic() - STARTED:6.1f}s] {message}", file=sys.stderr, flush=True)
