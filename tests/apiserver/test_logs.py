"""-v, --vmodule and --logging-format: what reaches the log, and in which form."""

from __future__ import annotations

import io
import logging
import subprocess
import sys

import orjson
import pytest

from svc.apiserver.logs import LogSettings, configure_logging
from svc.apiserver.options import parse_options


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _record(module_path: str, level: int, message: str) -> logging.LogRecord:
    return logging.getLogger("svc.test").makeRecord("svc.test", level, module_path, 7, message, (), None)


def _emit(record: logging.LogRecord) -> None:
    logging.getLogger("svc.test").handle(record)


def test_default_verbosity_shows_warnings_not_information(restore_logging, capsys) -> None:
    configure_logging(LogSettings())
    _emit(_record("/x/watch_cache.py", logging.INFO, "quiet"))
    _emit(_record("/x/watch_cache.py", logging.WARNING, "loud"))
    assert capsys.readouterr().err.splitlines() == ["W svc.test: loud"]


def test_vmodule_raises_verbosity_of_matching_modules_only(restore_logging, capsys) -> None:
    configure_logging(LogSettings(vmodule=(("watch_*", 4),)))
    _emit(_record("/x/watch_cache.py", logging.DEBUG, "from the cache"))
    _emit(_record("/x/store.py", logging.DEBUG, "from the store"))
    assert capsys.readouterr().err.splitlines() == ["D svc.test: from the cache"]


def test_json_format_writes_klog_keys(restore_logging, capsys) -> None:
    configure_logging(LogSettings(verbosity=2, format="json"))
    _emit(_record("/x/store.py", logging.INFO, "hello"))
    (line,) = capsys.readouterr().err.splitlines()
    entry = orjson.loads(line)
    assert entry["msg"] == "hello"
    assert entry["caller"] == "store.py:7"
    assert set(entry) == {"ts", "caller", "msg", "v"}


def test_flags_reach_the_settings() -> None:
    options = parse_options(["-v=3", "--vmodule=store=5,watch*=2", "--logging-format=json"])
    assert options.logging == LogSettings(verbosity=3, vmodule=(("store", 5), ("watch*", 2)), format="json")


@pytest.mark.parametrize("flags", [["--v=4"], ["-v", "4"], ["--v", "4"]], ids=["--v=4", "-v 4", "--v 4"])
def test_verbosity_takes_both_spellings(flags: list[str]) -> None:
    """klog's flag is `v`: Go's flag package reads it with one dash or two, `=` or a separate value."""
    assert parse_options(flags).logging.verbosity == 4


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--logging-format=xml", 'format: Invalid value: "xml": Unsupported log format'),
        ("--vmodule=store", '"store" does not have the pattern=N format'),
        ("--vmodule=store=high", 'parsing verbosity in "store=high": strconv.ParseInt: parsing "high": invalid syntax'),
    ],
)
def test_bad_logging_flags_exit_2_with_one_line(flag, message) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "svc.apiserver", flag], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"Error: {message}"]


def test_log_lines_go_to_the_stderr_of_the_moment(restore_logging, monkeypatch) -> None:
    """A stream replaced after logging was set up (as pytest's capture does) receives the lines; the
    stream that was stderr at set-up may be closed by then."""
    configure_logging(LogSettings())
    later = io.StringIO()
    monkeypatch.setattr(sys, "stderr", later)
    logging.getLogger("svc.test").warning("after the swap")
    assert later.getvalue() == "W svc.test: after the swap\n"
