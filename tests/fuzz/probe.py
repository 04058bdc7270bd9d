"""Send one raw request to the live server and check what must hold for any input.

Raw `http.client` rather than the project's REST client: the fuzzer controls the exact path, query
string, header names, repeats and body bytes. Checks on every answer: never a 500; an error body is
a `Status` decodable in the format the response names; the server log stays free of tracebacks.
"""

from __future__ import annotations

import copy
import gzip
import http.client
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import ssl_context
from svc.testing.harness import RunningServer
from tests.fuzz.wire import CONTENT_TYPES, decode_body, dumps

WATCH_TIMEOUT = 10.0
PLAIN_MEDIA_TYPES = frozenset(CONTENT_TYPES.values())
"""An Accept of exactly one of these must get an error in it (upstream's ErrorNegotiated)."""


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes
    streaming: bool

    def json(self) -> Any:
        return orjson.loads(self.body)


class Probe:
    def __init__(self, running: RunningServer, log: Path) -> None:
        self.running = running
        self.log = log
        config = load_kubeconfig(running.kubeconfig)
        self._context = ssl_context(config)
        host_port = running.url.removeprefix("https://")
        self._host, port = host_port.rsplit(":", 1)
        self._port = int(port)
        self._connection: http.client.HTTPSConnection | None = None
        self._log_checked = 0
        self._previous = ""
        """The request sent before, kept alive on the connection: named when an answer is unreadable."""

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPSConnection:
        if self._connection is None:
            self._connection = http.client.HTTPSConnection(
                self._host, self._port, context=self._context, timeout=WATCH_TIMEOUT
            )
        return self._connection

    def send(
        self,
        method: str,
        target: str,
        *,
        headers: list[tuple[str, str]] = (),  # type: ignore[assignment]
        body: bytes | None = None,
    ) -> Answer:
        """Send as given and check the answer; a 200 to a watch is left unread (it streams)."""
        connection = self._connect()
        try:
            connection.putrequest(method, target, skip_host=False, skip_accept_encoding=True)
            for name, value in headers:
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
        except Exception as error:
            self.close()
            raise AssertionError(f"{method} {target[:300]} after {self._previous}: {error!r}") from error
        self._previous = f"{method} {target[:300]} {headers!r} {(body or b'')[:100]!r}"
        content_type = response.headers.get("Content-Type", "")
        streaming = response.status == 200 and "watch" in target.lower()
        if streaming:
            self.close()
            payload = b""
        else:
            payload = response.read()
            if response.headers.get("Content-Encoding") == "gzip":
                payload = gzip.decompress(payload)
            if response.will_close:
                self.close()
        answer = Answer(response.status, content_type, payload, streaming)
        check_answer(method, target, answer, headers)
        return answer

    def send_json(self, method: str, target: str, obj: Any = None, *, content_type: str = "application/json") -> Answer:
        headers = [("Accept", "application/json")]
        body = None
        if obj is not None:
            headers.append(("Content-Type", content_type))
            body = dumps(obj)
        return self.send(method, target, headers=headers, body=body)

    def assert_clean_log(self) -> None:
        text = self.log.read_text(errors="replace")
        fresh = text[self._log_checked :]
        self._log_checked = len(text)
        assert "Traceback" not in fresh, f"server log has a traceback:\n{fresh[-4000:]}"


def check_answer(method: str, target: str, answer: Answer, headers: Sequence[tuple[str, str]] = ()) -> None:
    where = f"{method} {target[:300]}"
    if answer.status == 500 and _upstream_answers_500(answer):
        return
    assert answer.status != 500, f"{where} -> 500: {answer.body[:1000]!r}"
    if answer.status < 400 or method == "HEAD":
        return
    try:
        status = decode_body(answer.content_type, answer.body)
    except AssertionError:
        raise
    except Exception as error:
        raise AssertionError(f"{where} -> {answer.status}: undecodable {answer.content_type!r} body: {error}") from None
    assert isinstance(status, dict), f"{where} -> {answer.status}: not an object: {status!r}"
    assert status.get("kind") == "Status", f"{where} -> {answer.status}: not a Status: {status!r}"
    assert status.get("apiVersion") == "v1", f"{where} -> {answer.status}: {status!r}"
    assert status.get("status") == "Failure", f"{where} -> {answer.status}: {status!r}"
    assert status.get("code") == answer.status, f"{where} -> {answer.status}: {status!r}"
    accepted = [value for name, value in headers if name.lower() == "accept"]
    if len(accepted) == 1 and accepted[0] in PLAIN_MEDIA_TYPES:
        assert answer.content_type == accepted[0], f"{where}: Accept {accepted[0]}, error in {answer.content_type}"


SERVER_SET = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")


def object_path(collection: str, obj: dict[str, Any]) -> str:
    """A name is any path segment for some kinds (a ClusterRole's may be non-ASCII): percent-encoded."""
    return f"{collection}/{quote(obj['metadata']['name'], safe='')}"


def assert_resubmittable(probe: Probe, collection: str, written: dict[str, Any]) -> None:
    """What the server stored it must accept back: unchanged by PUT, and as a copy by POST.

    A Service's copy drops its allocated cluster IPs and node ports, which the original holds."""
    path = object_path(collection, written)
    got = probe.send_json("GET", path)
    if got.status == 404:  # deleted meanwhile: a namespace or an object with no finalizer left
        return
    assert got.status == 200, f"GET {path} -> {got.status}: {got.body[:500]!r}"
    stored = got.json()
    put = probe.send_json("PUT", path, stored)
    # 404: an object being deleted may go (its last finalizer removed) between the GET and the PUT.
    assert put.status in (200, 404, 409), f"PUT back of {stored!r} -> {put.status}: {put.body[:1000]!r}"
    duplicate = copy.deepcopy(stored)
    duplicate["metadata"]["name"] = stored["metadata"]["name"] + "-copy"
    duplicate["metadata"].pop("resourceVersion", None)
    duplicate["metadata"].pop("generateName", None)
    spec = duplicate.get("spec")
    if duplicate.get("kind") == "Service" and isinstance(spec, dict):
        for key in ("clusterIP", "clusterIPs", "healthCheckNodePort"):
            spec.pop(key, None)
        for port in spec.get("ports") or []:
            port.pop("nodePort", None)
    created = probe.send_json("POST", collection, duplicate)
    assert created.status in (201, 409), f"POST copy of {stored!r} -> {created.status}: {created.body[:1000]!r}"


UPSTREAM_500_CAUSES = (
    "failed to create typed patch object (",
    "expected a ",
    "expected slice or array type",
    "unknown patch type: ",
    "unexpected patch strategy",
    "map: ",
    "unable to find api field in struct",
    "list element types are not identical",
    "no elements in any of the given slices",
    "value for key ",
    "merging an object in json but data type is not struct",
    "cannot merge lists without merge key",
    "merging lists cannot yet be specified in the patch",
    "invalid value for special key",
    "The order in patch list:",
)
"""Upstream answers these patch and apply failures with a 500 (its handlers pass the plain Go error of
the strategic-merge or structured-merge code through `ErrorToAPIStatus`), and svc copies that on
purpose (`svc/machinery/patch/errors.py`, `svc/apiserver/handlers/managed_fields.py`)."""


def _upstream_answers_500(answer: Answer) -> bool:
    try:
        message = decode_body(answer.content_type, answer.body).get("message", "")
    except Exception:
        return False
    cause = message.removeprefix("Internal error occurred: ")
    return cause.startswith(UPSTREAM_500_CAUSES) and not cause.startswith("unexpected ")
