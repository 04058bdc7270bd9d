"""`pods/{name}/portforward`: the WebSocket port-forward stream, relayed to the pod's kubelet.

As upstream's PortForwardREST: a pod without a node is a 400, the request must be an upgrade, a
WebSocket GET must also be allowed to `create` the subresource (AuthorizePodWebsocketUpgradeCreatePermission),
and the `ports` options reach the kubelet's `/portForward` as its `port` query values. The kubelet
chooses the channel protocol (`v4.channel.k8s.io`) from those the client offers.
"""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.handlers.pod_exec import authorize_create, relay_to_kubelet
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status


async def pod_port_forward(scope: Scope) -> web.StreamResponse:
    """Serve `portforward` by relaying the WebSocket to the pod's kubelet."""
    request = scope.ctx.request
    pod = await scope.store.get(scope.namespace, scope.name)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        raise status.bad_request(f"pod {scope.name} does not have a host assigned")
    if request.headers.get("Upgrade", "").lower() != "websocket":
        raise status.bad_request("Upgrade request required")
    if request.method == "GET":
        await authorize_create(scope)
    params = [("port", port) for port in scope.query.getall("ports", [])]
    return await relay_to_kubelet(scope, node_name, f"portForward/{scope.namespace}/{scope.name}", params)
