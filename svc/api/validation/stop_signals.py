"""A container's `lifecycle.stopSignal` checked against its pod's OS, as upstream's `validateStopSignal`.

The signal is only meaningful once the pod says which OS it runs on (`spec.os.name`): Linux takes
any of its named signals, real-time ones included (`SIGRTMIN+1` .. `SIGRTMAX-1`), Windows only
SIGTERM and SIGKILL. An OS name that is neither is `spec.os`'s own error, not the signal's. The check
runs whatever the ContainerStopSignals gate says: with it off the field is dropped from a new object
before validation (gated_fields.py), and one already stored keeps being checked.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import lookup
from svc.machinery.field_errors import FieldError, forbidden, not_supported

_NAMED: Final = (
    "SIGABRT",
    "SIGALRM",
    "SIGBUS",
    "SIGCHLD",
    "SIGCLD",
    "SIGCONT",
    "SIGFPE",
    "SIGHUP",
    "SIGILL",
    "SIGINT",
    "SIGIO",
    "SIGIOT",
    "SIGKILL",
    "SIGPIPE",
    "SIGPOLL",
    "SIGPROF",
    "SIGPWR",
    "SIGQUIT",
    "SIGSEGV",
    "SIGSTKFLT",
    "SIGSTOP",
    "SIGSYS",
    "SIGTERM",
    "SIGTRAP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGUSR1",
    "SIGUSR2",
    "SIGVTALRM",
    "SIGWINCH",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGRTMIN",
    "SIGRTMAX",
)
_LINUX: Final = frozenset(
    (
        *_NAMED,
        *(f"SIGRTMIN+{number}" for number in range(1, 16)),
        *(f"SIGRTMAX-{number}" for number in range(1, 15)),
    )
)
_WINDOWS: Final = frozenset(("SIGKILL", "SIGTERM"))
_SUPPORTED: Final = {"linux": (_LINUX, sorted(_LINUX)), "windows": (_WINDOWS, sorted(_WINDOWS))}


def stop_signal_errors(container: Any, path: str, pod_os: Any) -> list[FieldError]:
    """The errors of a container's stop signal (none when it has none); `pod_os` is the pod's `spec.os`."""
    signal = lookup(container, "lifecycle.stopSignal")
    if signal is None:
        return []
    where = f"{path}.lifecycle.stopSignal"
    if pod_os is None:
        return [forbidden(where, "may not be set for containers with empty `spec.os.name`")]
    name = lookup(pod_os, "name")
    supported = _SUPPORTED.get(name) if isinstance(name, str) else None
    if supported is None or (isinstance(signal, str) and signal in supported[0]):
        return []
    return [not_supported(where, signal, supported[1])]
