"""Log output as `-v`, `--vmodule` and `--logging-format` ask for it.

klog's verbosity is a number, Python's a level: 0 shows warnings and errors (what this server writes
without being asked), 1 to 3 add informational lines, 4 and above debug lines. `--vmodule` raises or
lowers that threshold for the modules whose file name matches a glob, as klog matches Go file names.
The JSON format writes one object per line with klog's keys (`ts`, `caller`, `msg`, `v`).
"""

from __future__ import annotations

import fnmatch
import logging
import sys
from dataclasses import dataclass, field
from typing import Any

import orjson

FORMATS = ("text", "json")


@dataclass(frozen=True)
class LogSettings:
    verbosity: int = 0
    vmodule: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    format: str = "text"


def parse_vmodule(text: str) -> tuple[tuple[str, int], ...]:
    """`pattern=N,...`; raises ValueError with klog's wording."""
    entries = []
    for item in text.split(","):
        if not item:
            continue
        pattern, sep, level = item.partition("=")
        if not sep or not pattern:
            raise ValueError(f'"{item}" does not have the pattern=N format')
        try:
            number = int(level)
        except ValueError:
            raise ValueError(
                f'parsing verbosity in "{item}": strconv.ParseInt: parsing "{level}": invalid syntax'
            ) from None
        if number < 0:
            raise ValueError(f'parsing verbosity in "{item}": negative verbosity')
        entries.append((pattern, number))
    return tuple(entries)


def _level(verbosity: int) -> int:
    if verbosity <= 0:
        return logging.WARNING
    return logging.INFO if verbosity < 4 else logging.DEBUG


class _Threshold(logging.Filter):
    """Lets a record through when its module's verbosity (from --vmodule, else -v) allows its level."""

    def __init__(self, settings: LogSettings) -> None:
        super().__init__()
        self._default = _level(settings.verbosity)
        self._patterns = [(pattern, _level(number)) for pattern, number in settings.vmodule]
        self._by_module: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        threshold = self._by_module.get(record.module)
        if threshold is None:
            threshold = next(
                (level for pattern, level in self._patterns if fnmatch.fnmatchcase(record.module, pattern)),
                self._default,
            )
            self._by_module[record.module] = threshold
        return record.levelno >= threshold


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": round(record.created, 6),
            "caller": f"{record.filename}:{record.lineno}",
            "msg": record.getMessage(),
            "v": 0 if record.levelno >= logging.INFO else 4,
        }
        if record.exc_info:
            entry["err"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to `sys.stderr` as it is when a record comes, not as it was when logging was set up: an
    in-process server (tests, `/debug/flags/v`) outlives the stream that was stderr at the time."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> Any:  # type: ignore[override]
        return sys.stderr


def configure_logging(settings: LogSettings) -> None:
    handler = _CurrentStderr()
    handler.addFilter(_Threshold(settings))
    if settings.format == "json":
        handler.setFormatter(_JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname).1s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    levels = [settings.verbosity, *(number for _, number in settings.vmodule)]
    root.setLevel(_level(max(levels)))
