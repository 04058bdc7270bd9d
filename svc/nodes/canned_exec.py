"""The simulated kubelet's `exec` and `attach`: the WebSocket remote-command protocol with a canned shell.

Nothing runs: `echo` prints its arguments, `hostname` the pod's name, `true`/`false`/`exit N` only set
the exit code, `sh -c '<script>'` runs the script's `;`-separated commands that way, and anything else
prints `simulated exec: <command>`. As a kubelet, the result ends on the error channel (3) as a
`Status` (Success, or Failure with reason NonZeroExitCode and the code as an `ExitCode` cause), then
the connection closes. `attach` echoes stdin to stdout until the client closes stdin or the connection.
"""

from __future__ import annotations

import json
import shlex

from aiohttp import WSMsgType, web

# Upstream's channel-protocol versions, newest first; the client's first offered one that is listed wins.
PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io")
STDIN, STDOUT, STDERR, ERROR = 0, 1, 2, 3
CLOSE = 255  # v5: the client closed the stream named in the next byte


def run_canned(argv: list[str], pod_name: str) -> tuple[str, int]:
    """The output and exit code of `argv` in the canned shell."""
    if argv[:2] in (["sh", "-c"], ["bash", "-c"], ["/bin/sh", "-c"], ["/bin/bash", "-c"]) and len(argv) > 2:
        output, code = "", 0
        for part in argv[2].split(";"):
            words = shlex.split(part)
            if words:
                text, code = run_canned(words, pod_name)
                output += text
                if words[0] == "exit":
                    break
        return output, code
    name, args = argv[0], argv[1:]
    if name == "echo":
        return " ".join(args) + "\n", 0
    if name == "hostname":
        return pod_name + "\n", 0
    if name in ("true", "false"):
        return "", int(name == "false")
    if name == "exit":
        return "", int(args[0]) if args and args[0].isdigit() else 0
    return f"simulated exec: {shlex.join(argv)}\n", 0


def exit_status(argv: list[str], code: int) -> dict:
    """The Status a kubelet sends on the error channel when the command ended with `code`."""
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: command '{shlex.join(argv)}' exited with {code}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def _flag(request: web.Request, name: str) -> bool:
    return request.query.get(name, "").lower() in ("1", "t", "true")


async def serve_exec(request: web.Request, pod_name: str) -> web.WebSocketResponse:
    """Run the `command` query values in the canned shell and report as the kubelet does."""
    argv = request.query.getall("command", [])
    socket = web.WebSocketResponse(protocols=PROTOCOLS)
    await socket.prepare(request)
    output, code = run_canned(argv, pod_name) if argv else ("", 0)
    if output and _flag(request, "output"):
        await socket.send_bytes(bytes([STDOUT]) + output.encode())
    await socket.send_bytes(bytes([ERROR]) + json.dumps(exit_status(argv, code)).encode())
    await socket.close()
    return socket


async def serve_attach(request: web.Request) -> web.WebSocketResponse:
    """Echo stdin to stdout: the simulated container's main process is a `cat`."""
    socket = web.WebSocketResponse(protocols=PROTOCOLS)
    await socket.prepare(request)
    async for message in socket:
        if message.type != WSMsgType.BINARY or not message.data:
            continue
        channel, payload = message.data[0], message.data[1:]
        if channel == STDIN and payload and _flag(request, "output"):
            await socket.send_bytes(bytes([STDOUT]) + payload)
        elif channel == CLOSE and payload[:1] == bytes([STDIN]):
            break
    if not socket.closed:
        await socket.send_bytes(bytes([ERROR]) + json.dumps(exit_status([], 0)).encode())
        await socket.close()
    return socket
