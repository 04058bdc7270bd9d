"""A scripted HTTPS admission webhook for tests: it records every AdmissionReview it receives and
answers with what the test's `respond` function returns."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from svc.testing.harness import RunningServer
from svc.testing.webhook_server import WebhookTls, issue_webhook_tls, threaded_https_webhook

Respond = Callable[[dict[str, Any]], dict[str, Any]]


def allow(_: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": True}


def patch_response(operations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "allowed": True,
        "patchType": "JSONPatch",
        "patch": base64.b64encode(json.dumps(operations).encode()).decode(),
    }


@dataclass
class Webhook:
    url: str
    tls: WebhookTls
    reviews: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    answers: dict[str, Respond] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def client_config(self, path: str) -> dict[str, Any]:
        return {"url": f"{self.url}/{path}", "caBundle": self.tls.ca_bundle}

    def calls(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.reviews.get(path, ()))


@contextlib.contextmanager
def scripted_webhook(directory: Path, hosts: tuple[str, ...] = ("127.0.0.1",)) -> Iterator[Webhook]:
    tls = issue_webhook_tls(directory, list(hosts))
    state: dict[str, Webhook] = {}

    async def handler(request: web.Request) -> web.Response:
        hook = state["hook"]
        path = request.match_info["path"]
        review = await request.json()
        with hook.lock:
            hook.reviews.setdefault(path, []).append(review)
        delay = hook.delays.get(path, 0.0)
        if delay:
            await asyncio.sleep(delay)
        answer = hook.answers.get(path, allow)(review)
        body = {
            "apiVersion": review["apiVersion"],
            "kind": "AdmissionReview",
            "response": {"uid": review["request"]["uid"], **answer},
        }
        return web.json_response(body)

    with threaded_https_webhook(handler, tls, "/{path}") as url:
        state["hook"] = Webhook(url, tls)
        yield state["hook"]


def group(server: RunningServer, upstream: str) -> str:
    assert server.server is not None
    return server.server.profile.group(upstream)


def webhook_configuration(
    server: RunningServer, kind: str, name: str, webhooks: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "apiVersion": f"{group(server, 'admissionregistration.k8s.io')}/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": webhooks,
    }


def install(server: RunningServer, kind: str, name: str, webhooks: list[dict[str, Any]]) -> None:
    plural = kind.lower() + "s"
    path = f"/apis/{group(server, 'admissionregistration.k8s.io')}/v1/{plural}"
    response = server.client().request("POST", path, body=webhook_configuration(server, kind, name, webhooks))
    assert response.status == 201, response.body


def configmap_rule(operations: tuple[str, ...] = ("CREATE",)) -> dict[str, Any]:
    return {"operations": list(operations), "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}


def hook(name: str, webhook: Webhook, path: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "clientConfig": webhook.client_config(path),
        "rules": [configmap_rule()],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        **fields,
    }


def configmap(name: str, **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **metadata}, "data": {"k": "v"}}


def store_unvalidated(server: RunningServer, kind: str, name: str, webhooks: list[dict[str, Any]]) -> None:
    """Writes a configuration straight to storage, as one stored before validation tightened would
    be (v1 refuses sideEffects Some/Unknown, which v1beta1 allowed)."""
    assert server.server is not None
    store = server.server.store_for("admissionregistration.k8s.io", kind.lower() + "s")
    obj = webhook_configuration(server, kind, name, webhooks)
    obj["metadata"]["uid"] = "00000000-0000-0000-0000-000000000001"
    server.call(store.objects.create(store.key("", name), obj))
