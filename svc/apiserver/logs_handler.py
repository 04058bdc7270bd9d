"""`/logs` (`--enable-logs-handler`, deprecated upstream and off by default): the host's `/var/log`,
as upstream serves it, read-only: `/logs/` lists the directory, `/logs/<path>` returns a file (or
lists a subdirectory). Authorization is the chain's, for the non-resource URL (`get` on `/logs/*`).
Paths resolving outside the directory (`..`, symbolic links pointing out) are not found.
"""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from urllib.parse import quote

from aiohttp import web

from svc.machinery import status

PREFIX = "/logs"
LOG_DIRECTORY = Path("/var/log")


def _listing(directory: Path) -> web.Response:
    """Go's `http.FileServer` listing: a `<pre>` of links, directories with a trailing slash."""
    entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
    links = []
    for entry in entries:
        name = entry.name + ("/" if entry.is_dir() else "")
        links.append(f'<a href="{quote(name)}">{html.escape(name)}</a>\n')
    body = '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n' + "".join(links) + "</pre>\n"
    return web.Response(text=body, content_type="text/html")


def _resolve(root: Path, relative: str) -> Path:
    root = root.resolve()
    target = (root / relative).resolve()
    if target != root and root not in target.parents:
        raise status.not_found_path()
    if not target.exists():
        raise status.not_found_path()
    return target


async def serve(path: str, root: Path = LOG_DIRECTORY) -> web.StreamResponse:
    """Answer a path under `/logs` (the caller checked the prefix and that the handler is enabled)."""
    relative = path[len(PREFIX) :].lstrip("/")
    target = _resolve(root, relative)
    if target.is_dir():
        return await asyncio.to_thread(_listing, target)
    body = await asyncio.to_thread(target.read_bytes)
    return web.Response(body=body, content_type="text/plain", charset="utf-8")
