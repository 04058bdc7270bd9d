"""The daemon's log output as `-v`, `--vmodule` and the alpha text-format options ask for it.

`-v` 4 and above shows debug lines, below that informational ones (the daemon reports its leases
and controllers at that level, as upstream's at `-v=0`); `--vmodule` (the API server's syntax) sets the
number per module, matched by file-name glob as klog matches Go file names. `--log-text-split-stream`
writes informational lines to stdout and the rest to stderr, stdout buffered up to
`--log-text-info-buffer-size` bytes; both need the LoggingAlphaOptions feature gate, as upstream.
"""

from __future__ import annotations

import fnmatch
import io
import logging
import sys
from dataclasses import dataclass

from svc.apiserver.feature_gates import FeatureGates
from svc.apiserver.logs import parse_vmodule
from svc.machinery.quantity import parse_quantity

GATE = "LoggingAlphaOptions"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@dataclass(frozen=True)
class TextOutput:
    verbosity: int = 0
    vmodule: tuple[tuple[str, int], ...] = ()
    split_stream: bool = False
    info_buffer_size: int = 0


def from_flags(
    *, verbosity: int, vmodule: str, split_stream: bool, info_buffer_size: str, gates: FeatureGates
) -> TextOutput:
    """The settings; ValueError with upstream's text for a bad value or an alpha option without its gate."""
    patterns = parse_vmodule(vmodule) if vmodule else ()
    size = 0
    if info_buffer_size:
        try:
            size = int(parse_quantity(info_buffer_size).value)
        except ValueError as error:
            raise ValueError(
                f'invalid argument "{info_buffer_size}" for "--log-text-info-buffer-size" flag: {error}'
            ) from None
    problems = []
    if not gates.enabled(GATE):
        if split_stream:
            problems.append(f"options.text.splitStream: Forbidden: Feature {GATE} is disabled")
        if size:
            problems.append(f"options.text.infoBufferSize: Forbidden: Feature {GATE} is disabled")
    if problems:
        raise ValueError("; ".join(problems))
    return TextOutput(verbosity, patterns, split_stream, size)


def _level(verbosity: int) -> int:
    return logging.DEBUG if verbosity >= 4 else logging.INFO


class _PerModule(logging.Filter):
    def __init__(self, output: TextOutput) -> None:
        super().__init__()
        self._default = _level(output.verbosity)
        self._patterns = [(pattern, _level(number)) for pattern, number in output.vmodule]

    def filter(self, record: logging.LogRecord) -> bool:
        threshold = next(
            (level for pattern, level in self._patterns if fnmatch.fnmatchcase(record.module, pattern)), self._default
        )
        return record.levelno >= threshold


class _Below(logging.Filter):
    def __init__(self, level: int) -> None:
        super().__init__()
        self._level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < self._level


class _Buffered(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes into a buffer of its own size: lines reach the stream when it fills or at exit."""

    def __init__(self, size: int) -> None:
        super().__init__(io.TextIOWrapper(io.BufferedWriter(sys.stdout.buffer, size), write_through=False))

    def flush(self) -> None:
        """Not after every line: the buffer decides."""

    def close(self) -> None:
        self.stream.flush()
        super().close()


def configure(output: TextOutput) -> None:
    formatter = logging.Formatter(_FORMAT)
    errors = logging.StreamHandler(sys.stderr)
    handlers: list[logging.Handler] = [errors]
    if output.split_stream:
        errors.setLevel(logging.WARNING)
        info = _Buffered(output.info_buffer_size) if output.info_buffer_size else logging.StreamHandler(sys.stdout)
        info.addFilter(_Below(logging.WARNING))
        handlers.append(info)
    root = logging.getLogger()
    root.handlers[:] = handlers
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(_PerModule(output))
    levels = [output.verbosity, *(number for _, number in output.vmodule)]
    root.setLevel(_level(max(levels)))
