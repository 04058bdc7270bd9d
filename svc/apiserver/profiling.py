"""`/debug/pprof/` (`--profiling`, on by default as upstream): what the process is doing, for Python.

Upstream serves Go's pprof profiles; a Python process has other ones, served at the same paths and
authorized the same way (a non-resource URL: `get` on `/debug/pprof/*`, so by default only
`system:masters`):
- `profile?seconds=N` (default 30): a sampling CPU profile of the event loop's thread, every 10 ms,
  in the collapsed-stack text format (`frame;frame;frame count` per line) that flame-graph tools
  read; not Go's protobuf format;
- `goroutine`: the asyncio tasks and the stack each is suspended in (what `goroutine?debug=2` shows);
- `heap`: live objects by type (the collector's view), and `tracemalloc`'s top lines when tracing.

With them, as upstream, `PUT /debug/flags/v` (body: a number) changes the log verbosity (`-v`) of the
running server.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import gc
import io
import sys
import threading
import time
import tracemalloc
from types import FrameType

from aiohttp import web

from svc.apiserver.logs import LogSettings, configure_logging
from svc.machinery import status

PREFIX = "/debug/pprof"
VERBOSITY_FLAG = "/debug/flags/v"
DEFAULT_SECONDS = 30
SAMPLE_INTERVAL = 0.01
_TEXT = "text/plain; charset=utf-8"
_INDEX = """<html><head><title>/debug/pprof/</title></head><body>
/debug/pprof/<br><br>
Types of profiles available:
<table>
<tr><td><a href="goroutine?debug=2">goroutine</a></td><td>asyncio tasks and their stacks</td></tr>
<tr><td><a href="heap">heap</a></td><td>live objects by type</td></tr>
<tr><td><a href="profile">profile</a></td><td>CPU profile (collapsed stacks); add ?seconds=N</td></tr>
</table></body></html>
"""


def _stack(frame: FrameType | None) -> str:
    names = []
    while frame is not None:
        code = frame.f_code
        names.append(f"{code.co_name} ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})")
        frame = frame.f_back
    return ";".join(reversed(names))


def sample(thread_id: int, seconds: float, interval: float = SAMPLE_INTERVAL) -> collections.Counter[str]:
    """Stacks of thread `thread_id`, sampled every `interval` for `seconds` (runs on its own thread)."""
    counts: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        frame = sys._current_frames().get(thread_id)
        if frame is not None:
            counts[_stack(frame)] += 1
        time.sleep(interval)
    return counts


async def _profile(request: web.BaseRequest) -> web.Response:
    text = request.query.get("seconds", str(DEFAULT_SECONDS))
    try:
        seconds = int(text)
    except ValueError:
        raise status.bad_request(f'invalid seconds "{text}"') from None
    if seconds <= 0:
        raise status.bad_request("seconds must be positive")
    counts = await asyncio.to_thread(sample, threading.get_ident(), seconds)
    body = "".join(f"{stack} {count}\n" for stack, count in counts.most_common())
    return web.Response(text=body, content_type="text/plain", headers={"X-Content-Type-Options": "nosniff"})


def _tasks() -> str:
    out = io.StringIO()
    tasks = asyncio.all_tasks()
    out.write(f"tasks: {len(tasks)}\n\n")
    for task in sorted(tasks, key=lambda task: task.get_name()):
        out.write(f"task {task.get_name()}:\n")
        task.print_stack(limit=20, file=out)
        out.write("\n")
    return out.getvalue()


def _heap() -> str:
    counts = collections.Counter(type(obj).__qualname__ for obj in gc.get_objects())
    lines = [f"live objects tracked by the collector: {sum(counts.values())}"]
    lines += [f"{count:>10} {name}" for name, count in counts.most_common(50)]
    if tracemalloc.is_tracing():
        lines.append("\ntracemalloc, top 25 lines:")
        lines += [str(stat) for stat in tracemalloc.take_snapshot().statistics("lineno")[:25]]
    return "\n".join(lines) + "\n"


async def serve(path: str, request: web.BaseRequest) -> web.Response:
    """Answer a path under `/debug/pprof` (the caller checked the prefix and that profiling is on)."""
    name = path[len(PREFIX) :].strip("/")
    if name == "":
        return web.Response(text=_INDEX, content_type="text/html")
    if name == "profile":
        return await _profile(request)
    if name == "goroutine":
        return web.Response(text=_tasks(), content_type="text/plain")
    if name == "heap":
        return web.Response(text=await asyncio.to_thread(_heap), content_type="text/plain")
    raise status.not_found_path()


def _plain(status_code: int, text: str) -> web.Response:
    return web.Response(
        status=status_code, text=text + "\n", content_type="text/plain", headers={"X-Content-Type-Options": "nosniff"}
    )


async def set_verbosity(request: web.BaseRequest, settings: LogSettings) -> tuple[web.Response, LogSettings]:
    """`PUT /debug/flags/v`: the new settings (unchanged on error) and upstream's plain-text answer."""
    if request.method != "PUT":
        return _plain(406, "unsupported http method"), settings
    value = (await request.text()).strip()
    try:
        verbosity = int(value)
        if verbosity < 0:
            raise ValueError
    except ValueError:
        message = f'failed set klog.logging.verbosity {value}: strconv.ParseInt: parsing "{value}": invalid syntax'
        return _plain(400, message), settings
    changed = dataclasses.replace(settings, verbosity=verbosity)
    configure_logging(changed)
    return _plain(200, f"successfully set klog.logging.verbosity to {value}"), changed
