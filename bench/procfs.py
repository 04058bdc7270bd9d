"""What /proc says about a process and the machine: RSS, CPU time, and the machine's busy time.

Reading from outside keeps the measured processes unaware of the measurement; the machine's busy
time shows how much CPU other processes took during a batch (on a shared machine, the noise).
"""

from __future__ import annotations

import os
from pathlib import Path

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident set size of `pid`, from the VmRSS line of /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def open_fds(pid: int) -> int:
    """How many file descriptors `pid` holds, from /proc/<pid>/fd."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of `pid` (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle since boot (user, nice, system, irq, softirq, steal)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / _CLOCK_TICKS
