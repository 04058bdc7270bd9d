"""The simulated kubelet's HTTPS endpoint, which the API server calls for `pods/log`, `exec`, `attach` and
`portforward`.

One endpoint serves every simulated node of the process (the nodes advertise the same address and
port; the path names the pod). Logs are canned: the pod's `simulator.svc.io/log` annotation when set,
else one line per container start. Errors use the kubelet's texts, which the API server passes on.
"""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from svc.apiserver.pki import self_signed_server_context
from svc.apiserver.proxy.upgrade import ClientConnection, switch_protocols
from svc.client.informer import Handler, Informer
from svc.nodes.canned_exec import serve_attach, serve_exec
from svc.nodes.exec_spdy import PROTOCOL as SPDY_EXEC_PROTOCOL
from svc.nodes.exec_spdy import SpdyRemoteCommand
from svc.nodes.port_forward import serve_port_forward
from svc.nodes.port_forward_spdy import SpdyPortForward

Obj = dict[str, Any]
LOG_ANNOTATION = "simulator.svc.io/log"


def _container_status(pod: Obj, name: str, status: Obj | None = None) -> Obj | None:
    status = status or pod.get("status") or {}
    statuses = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    return next((s for s in statuses if s.get("name") == name), None)


def canned_log(pod: Obj, container: str, status: Obj) -> list[tuple[str, str]]:
    """(timestamp, line) pairs of the container's log, `status` the container's."""
    state = status.get("state") or {}
    started = (state.get("running") or state.get("terminated") or {}).get("startedAt", "")
    stamp = datetime.fromisoformat(started.replace("Z", "+00:00")) if started else datetime.now(UTC)
    text = (pod["metadata"].get("annotations") or {}).get(LOG_ANNOTATION)
    if text is None:
        metadata = pod["metadata"]
        text = (
            f"simulated container {container} of pod {metadata['namespace']}/{metadata['name']} "
            f"started on node {pod['spec'].get('nodeName', '')}"
        )
    nano = stamp.strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
    return [(nano, line) for line in text.splitlines()]


async def _serve_spdy_port_forward(request: web.Request, pod: Obj) -> web.StreamResponse:
    """Switch the connection to SPDY/3.1 and serve port forwarding on it until it ends."""
    if request.headers.get("X-Stream-Protocol-Version", "portforward.k8s.io") != "portforward.k8s.io":
        return web.Response(status=403, text="unable to upgrade: unsupported stream protocol version\n")
    headers = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1"), ("X-Stream-Protocol-Version", "portforward.k8s.io")]
    response, reader = await switch_protocols(request, headers)
    await SpdyPortForward(pod, reader, ClientConnection(request)).serve()
    if request.transport is not None:
        request.transport.close()
    return response


async def _serve_spdy_remote_command(request: web.Request, pod_name: str, *, attach: bool) -> web.StreamResponse:
    """Switch to SPDY/3.1 with the v4 channel protocol and run the exec or attach on it."""
    offered = [v.strip() for h in request.headers.getall("X-Stream-Protocol-Version", []) for v in h.split(",")]
    if SPDY_EXEC_PROTOCOL not in offered:
        return web.Response(
            status=403, text=f"unable to upgrade: unable to negotiate protocol: client supports {offered}"
        )
    headers = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1"), ("X-Stream-Protocol-Version", SPDY_EXEC_PROTOCOL)]
    response, reader = await switch_protocols(request, headers)
    await SpdyRemoteCommand(request, pod_name, reader, ClientConnection(request)).serve(attach)
    if request.transport is not None:
        request.transport.close()
    return response


class KubeletServer:
    def __init__(self, pods: Informer, reported: dict[str, Obj]) -> None:
        """`reported`: the statuses the simulated kubelet last wrote, fresher than the pod cache."""
        self.pods = pods
        self.reported = reported
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._change = asyncio.Event()
        pods.add_handler(Handler(on_update=lambda _old, _new: self._changed(), on_delete=lambda _pod: self._changed()))

    def _changed(self) -> None:
        """Wake the followed logs: a pod changed, maybe theirs stopped."""
        self._change.set()
        self._change = asyncio.Event()

    async def start(self, host: str = "127.0.0.1") -> int:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/containerLogs/{namespace}/{pod}/{container}", self._logs)
        for method in ("GET", "POST"):
            app.router.add_route(method, "/exec/{namespace}/{pod}/{container}", self._exec)
            app.router.add_route(method, "/attach/{namespace}/{pod}/{container}", self._attach)
            app.router.add_route(method, "/portForward/{namespace}/{pod}", self._port_forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        context = self_signed_server_context(common_name="svc-simulated-kubelet", hosts=[host])
        listener = socket.create_server((host, 0))
        self.port = listener.getsockname()[1]
        await web.SockSite(self._runner, listener, ssl_context=context).start()
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    def _missing(self, namespace: str, name: str, container: str) -> web.Response | None:
        """The kubelet's 404 when the pod or its container is unknown to it."""
        pod = self.pods.get(f"{namespace}/{name}")
        if pod is None:
            return web.Response(status=404, text=f'pod "{name}" does not exist\n')
        names = [c["name"] for c in (pod["spec"].get("initContainers") or []) + (pod["spec"].get("containers") or [])]
        if container not in names:
            return web.Response(status=404, text=f'container "{container}" not found in pod "{name}"\n')
        return None

    async def _exec(self, request: web.Request) -> web.StreamResponse:
        namespace, name, container = (request.match_info[key] for key in ("namespace", "pod", "container"))
        missing = self._missing(namespace, name, container)
        if missing is not None:
            return missing
        if request.headers.get("Upgrade", "").lower() == "spdy/3.1":
            return await _serve_spdy_remote_command(request, name, attach=False)
        return await serve_exec(request, name)

    async def _attach(self, request: web.Request) -> web.StreamResponse:
        namespace, name, container = (request.match_info[key] for key in ("namespace", "pod", "container"))
        missing = self._missing(namespace, name, container)
        if missing is not None:
            return missing
        if request.headers.get("Upgrade", "").lower() == "spdy/3.1":
            return await _serve_spdy_remote_command(request, name, attach=True)
        return await serve_attach(request)

    async def _port_forward(self, request: web.Request) -> web.StreamResponse:
        namespace, name = request.match_info["namespace"], request.match_info["pod"]
        pod = self.pods.get(f"{namespace}/{name}")
        if pod is None:
            return web.Response(status=404, text=f'pod "{name}" does not exist\n')
        if request.headers.get("Upgrade", "").lower() == "spdy/3.1":
            return await _serve_spdy_port_forward(request, pod)
        return await serve_port_forward(request, pod)

    async def _logs(self, request: web.Request) -> web.StreamResponse:
        namespace, name, container = (request.match_info[key] for key in ("namespace", "pod", "container"))
        missing = self._missing(namespace, name, container)
        if missing is not None:
            return missing
        pod = self.pods.get(f"{namespace}/{name}")
        status = _container_status(pod, container, self.reported.get(f"{namespace}/{name}"))
        if status is None or "waiting" in (status.get("state") or {}):
            reason = ((status or {}).get("state") or {}).get("waiting", {}).get("reason", "ContainerCreating")
            return web.Response(
                status=400, text=f'container "{container}" in pod "{name}" is waiting to start: {reason}'
            )
        query = request.query
        if query.get("previous") == "true" and not status.get("lastState"):
            return web.Response(
                status=400, text=f'previous terminated container "{container}" in pod "{name}" not found'
            )
        lines = canned_log(pod, container, status)
        if query.get("tailLines", "").isdigit():
            tail = int(query["tailLines"])
            lines = lines[-tail:] if tail else []
        stamps = query.get("timestamps") == "true"
        body = "".join(f"{stamp} {line}\n" if stamps else f"{line}\n" for stamp, line in lines).encode()
        if query.get("limitBytes", "").isdigit():
            body = body[: int(query["limitBytes"])]
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        await response.write(body)
        if query.get("follow") == "true":
            while self._running(namespace, name, container):
                await self._change.wait()
        await response.write_eof()
        return response

    def _running(self, namespace: str, name: str, container: str) -> bool:
        pod = self.pods.get(f"{namespace}/{name}")
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return False
        status = _container_status(pod, container, self.reported.get(f"{namespace}/{name}"))
        return "running" in ((status or {}).get("state") or {})
