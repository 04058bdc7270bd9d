"""`--debug-socket-path`: the profiling endpoints (and `PUT /debug/flags/v`) on a unix socket, with
no authentication or authorization, as upstream serves them there (whoever can open the socket file
is trusted), whether or not `--profiling` serves them on the secure port too."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from svc.apiserver import profiling
from svc.apiserver.logs import LogSettings
from svc.machinery import status


class DebugSocket:
    def __init__(self, path: str, settings: Callable[[], LogSettings], apply: Callable[[LogSettings], None]) -> None:
        self.path = Path(path)
        self._settings = settings
        self._apply = apply
        self._runner: web.ServerRunner | None = None

    async def start(self) -> None:
        """Listen on the socket file, replacing a stale one (as upstream does)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)
        self._runner = web.ServerRunner(web.Server(self._handle))
        await self._runner.setup()
        await web.UnixSite(self._runner, str(self.path)).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        path = request.path.rstrip("/") or "/"
        try:
            if path == profiling.VERBOSITY_FLAG:
                response, settings = await profiling.set_verbosity(request, self._settings())
                self._apply(settings)
                return response
            if path == profiling.PREFIX or path.startswith(profiling.PREFIX + "/"):
                return await profiling.serve(path, request)
        except status.StatusError as error:
            return web.Response(status=error.code, text=str(error) + "\n")
        return web.Response(status=404, text="404 page not found\n")
