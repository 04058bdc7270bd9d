"""svc-apiserver lifts its soft open-file limit to the hard limit at start, as Go binaries do."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

PROGRAM = """
import resource
from svc.apiserver.main import raise_open_file_limit
raise_open_file_limit()
print(*resource.getrlimit(resource.RLIMIT_NOFILE))
"""


def _low_soft_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))


def test_the_soft_open_file_limit_is_raised_to_the_hard_limit() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        preexec_fn=_low_soft_limit,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
        check=True,
    )
    soft, hard = result.stdout.split()
    assert soft == hard
    assert int(hard) == resource.getrlimit(resource.RLIMIT_NOFILE)[1]
