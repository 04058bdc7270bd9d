"""What RBAC costs a namespaced GET by a service account, against AlwaysAllow, in the same run.

Two servers run side by side with the same objects: one authorizes with AlwaysAllow, the other with
RBAC over a policy of the size the authorization issue names (1,000 Roles with a RoleBinding each,
across 100 namespaces, and ClusterRoles holding 5,000 rules bound to other users). A service account
whose own RoleBinding lets it read ConfigMaps GETs one, first on one server, then on the other, in
alternating rounds; each server keeps its cheapest round. The difference in server CPU per request
is RBAC's cost on the request path.

A third server authorizes with a Webhook: a SubjectAccessReview service served over HTTPS by this
process, allowing everything. After the first GET its answer is cached, so its row is the cost of a
cached webhook decision (building the review and looking it up), without the policy objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import yaml
from aiohttp import web

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON, create_many, ensure_namespace
from bench.server import ServerProcess, start_server
from svc.apiserver.pki import KeyPair, ensure_self_signed

RBAC = "rbac.authorization.k8s.io"
TOKEN = "bench-service-account-token"
RULES_PER_CLUSTER_ROLE = 100
ROUNDS = 2
MODES = ("AlwaysAllow", "RBAC", "Webhook")
_WAIT_ATTEMPTS = 100


def _service_account(namespaces: int) -> tuple[str, str]:
    """The namespace and name of the service account that reads (one in the middle of the policy)."""
    index = namespaces // 2
    return f"authz-{index}", f"sa-{index}"


def _role(index: int, namespaces: int) -> dict:
    namespace = f"authz-{index % namespaces}"
    rules = [
        {"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["get", "list"]},
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"]},
    ]
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "Role",
        "metadata": {"name": f"role-{index}", "namespace": namespace},
        "rules": rules,
    }


def _binding(index: int, namespaces: int) -> dict:
    namespace = f"authz-{index % namespaces}"
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "RoleBinding",
        "metadata": {"name": f"binding-{index}", "namespace": namespace},
        "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": f"role-{index}"},
        "subjects": [{"kind": "ServiceAccount", "name": f"sa-{index % namespaces}", "namespace": namespace}],
    }


def _cluster_role(index: int) -> dict:
    groups = ("", "apps", "batch", "networking.k8s.io", "policy")
    rules = [
        {"apiGroups": [groups[rule % len(groups)]], "resources": [f"res{index}-{rule}"], "verbs": ["get", "list"]}
        for rule in range(RULES_PER_CLUSTER_ROLE)
    ]
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRole",
        "metadata": {"name": f"controller-{index}"},
        "rules": rules,
    }


def _cluster_binding(index: int) -> dict:
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": f"controller-{index}"},
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": f"controller-{index}"},
        "subjects": [{"kind": "User", "name": f"system:controller-{index}"}],
    }


async def _populate(server: ServerProcess, plan: Plan, *, policy: bool) -> None:
    """The namespaces and the ConfigMap read; with `policy`, the Roles, ClusterRoles and bindings."""
    namespaces, roles, rules = plan.authz_policy
    clock = CpuClock(server.cpu)
    url = server.url
    concurrency = plan.populate_concurrency
    async with open_session(server.credentials.ssl_context(), concurrency) as session:
        for index in range(namespaces):
            await ensure_namespace(session, url, f"authz-{index}")
        namespace, _ = _service_account(namespaces)
        async with session.post(
            f"{url}/api/v1/namespaces/{namespace}/configmaps", data=encode(configmap("target")), headers=JSON
        ) as response:
            await expect(response, 201)
        if not policy:
            return
        cluster_roles = max(1, rules // RULES_PER_CLUSTER_ROLE)
        batches = (
            ("clusterroles", _cluster_role, cluster_roles),
            ("clusterrolebindings", _cluster_binding, cluster_roles),
        )
        for resource, make, count in batches:
            collection = f"{url}/apis/{RBAC}/v1/{resource}"
            _checked(await create_many(session, collection, make, count=count, concurrency=concurrency, clock=clock))

        async def role_and_binding(index: int) -> None:
            for resource, make in (("roles", _role), ("rolebindings", _binding)):
                obj = make(index, namespaces)
                collection = f"{url}/apis/{RBAC}/v1/namespaces/{obj['metadata']['namespace']}/{resource}"
                async with session.post(collection, data=encode(obj), headers=JSON) as response:
                    await expect(response, 201)

        _checked(await drive(role_and_binding, count=roles, concurrency=concurrency, clock=clock))


def _server_cpu_per_request(measured: Measurement) -> float:
    """The server's CPU seconds per request: unlike throughput, barely moved by other processes on a
    shared machine, so two servers measured a few seconds apart compare fairly."""
    return measured.server_cpu / measured.ops if measured.ops else float("inf")


def _checked(measured: Measurement) -> Measurement:
    """A batch in which every request succeeded (a refused GET would make RBAC look cheap)."""
    if measured.errors:
        raise RuntimeError(f"{measured.errors} requests failed, the first with: {measured.first_error}")
    return measured


def _token_context(server: ServerProcess) -> ssl.SSLContext:
    """TLS that trusts the server but presents no client certificate (the token must authenticate)."""
    context = ssl.create_default_context(cafile=str(server.credentials.ca_file))
    context.set_alpn_protocols(["http/1.1"])
    return context


async def _measure(server: ServerProcess, plan: Plan, concurrency: int, count: int) -> Measurement:
    namespace, _ = _service_account(plan.authz_policy[0])
    target = f"{server.url}/api/v1/namespaces/{namespace}/configmaps/target"
    headers = {**JSON, "Authorization": f"Bearer {TOKEN}"}
    async with open_session(_token_context(server), concurrency) as session:

        async def get(_: int) -> None:
            async with session.get(target, headers=headers) as response:
                await expect(response, 200)

        for _ in range(_WAIT_ATTEMPTS):  # the RoleBinding reaches the index a cache flush after it is stored
            async with session.get(target, headers=headers) as response:
                await response.read()
                if response.status == 200:
                    break
            await asyncio.sleep(0.02)
        _checked(await drive(get, count=concurrency * 4, concurrency=concurrency, clock=CpuClock(server.cpu)))
        clock = CpuClock(server.cpu)
        return _checked(await drive(get, count=count, concurrency=concurrency, clock=clock, repeatable=True))


async def _allow(request: web.Request) -> web.Response:
    review = await request.json()
    return web.json_response({"apiVersion": review["apiVersion"], "kind": review["kind"], "status": {"allowed": True}})


@contextlib.asynccontextmanager
async def _sar_webhook(workdir: Path) -> AsyncIterator[Path]:
    """An allow-all SubjectAccessReview service on loopback; yields the kubeconfig naming it."""
    pair = ensure_self_signed(
        KeyPair(workdir / "sar-webhook.crt", workdir / "sar-webhook.key"), common_name="sar", hosts=["127.0.0.1"]
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pair.cert, pair.key)
    app = web.Application()
    app.router.add_post("/", _allow)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    kubeconfig = workdir / "sar-webhook.kubeconfig"
    cluster = {"server": f"https://127.0.0.1:{port}/", "certificate-authority": str(pair.cert)}
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "sar", "cluster": cluster}],
                "users": [{"name": "apiserver", "user": {}}],
                "contexts": [{"name": "sar", "context": {"cluster": "sar", "user": "apiserver"}}],
                "current-context": "sar",
            }
        )
    )
    try:
        yield kubeconfig
    finally:
        await runner.cleanup()


def _stop_all(servers: dict[str, ServerProcess]) -> None:
    for server in servers.values():
        server.stop()


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    namespaces, roles, rules = plan.authz_policy
    section = Section(
        f"Namespaced GET as a service account: AlwaysAllow vs RBAC ({roles:,} Roles and RoleBindings in "
        f"{namespaces} namespaces, {rules:,} ClusterRole rules) vs a cached Webhook decision",
        LATENCY_HEADERS,
    )
    facts: Facts = {}
    namespace, name = _service_account(namespaces)
    tokens = workdir / "authz-tokens.csv"
    groups = f"system:serviceaccounts,system:serviceaccounts:{namespace}"
    tokens.write_text(f'{TOKEN},system:serviceaccount:{namespace}:{name},sa-uid,"{groups}"\n')
    servers: dict[str, ServerProcess] = {}
    async with contextlib.AsyncExitStack() as stack:
        webhook = await stack.enter_async_context(_sar_webhook(workdir))
        stack.callback(_stop_all, servers)
        for mode in MODES:
            flags: tuple[str, ...] = ("--token-auth-file", str(tokens), "--authorization-mode", mode)
            if mode == "Webhook":
                flags += ("--authorization-webhook-config-file", str(webhook))
            servers[mode] = await start_server(workdir / f"authz-{mode}", extra=flags)
            progress(f"authz: populating the {mode} server")
            await _populate(servers[mode], plan, policy=mode == "RBAC")
        for concurrency, count in plan.crud_ops.items():
            best: dict[str, Measurement] = {}
            for round_ in range(ROUNDS):
                for mode in MODES:
                    progress(f"authz: GET x{count:,} with {concurrency} client(s), {mode}, round {round_ + 1}")
                    measured = await _measure(servers[mode], plan, concurrency, count)
                    if mode not in best or _server_cpu_per_request(measured) < _server_cpu_per_request(best[mode]):
                        best[mode] = measured
            for mode in MODES:
                note = f"server CPU {_server_cpu_per_request(best[mode]) * 1e6:.0f} µs/request"
                section.add(*latency_row(f"GET as service account, {mode}", concurrency, best[mode], note))
            for mode, fact in (("RBAC", "rbac"), ("Webhook", "cached webhook")):
                cost = _server_cpu_per_request(best[mode]) / _server_cpu_per_request(best["AlwaysAllow"]) - 1
                facts[f"authz {fact} cost/{concurrency}"] = cost
                section.notes.append(
                    f"{concurrency} client(s): {mode} costs {cost:+.1%} server CPU per request over AlwaysAllow"
                )
    section.notes.append(
        "target for RBAC: under 10% (issue 15); each mode keeps its cheapest of two alternating rounds "
        "(server CPU per request)"
    )
    return section, facts
