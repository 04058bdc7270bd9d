"""Controllers: the controller manager at rest over many namespaces, and how fast a new one is served.

One server and `svc-controller-manager` with its default controllers run as separate processes.
Three measures (issue 18):
1. N namespaces of 5 ConfigMaps each are created while the controller manager runs; once every
   namespace has its `default` ServiceAccount and the work queues are empty and quiet, its RSS and
   its CPU over a 10 s idle window.
2. Namespaces created at 200/s: from each create request to its `default` ServiceAccount arriving
   on a watch of every namespace's ServiceAccounts (p50/p99).
3. Work-queue adds per second of each controller, from `workqueue_adds_total` on the controller
   manager's `/metrics`, over the population and over the load.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from pathlib import Path

import aiohttp
import orjson
from prometheus_client.parser import text_string_to_metric_families

from bench.client import CpuClock, cpu_note, cpu_share, drive, expect, open_session, percentile, rest_of_machine
from bench.objects import encode
from bench.plan import Plan
from bench.procfs import cpu_seconds, rss_bytes
from bench.progress import progress
from bench.report import Facts, Section, millis, rate, size
from bench.rest import JSON
from bench.server import free_port, start_server
from bench.workloads import start_daemon, stop_daemon

CONFIGMAPS_PER_NAMESPACE = 5
CREATE_RATE = 200.0
IDLE_SECONDS = 10.0
SETTLE_WITHIN = 600.0
ARRIVAL_WITHIN = 30.0
TOP_QUEUES = 12
_POLL = 0.5

HEADERS = ("measure", "value", "notes")
QUEUE_HEADERS = ("work queue", "adds/s while populating", "adds/s under load", "adds in all")


def _namespace(name: str) -> bytes:
    return encode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


def _configmap(name: str) -> bytes:
    return encode({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"key": "value"}})


async def _scrape(session: aiohttp.ClientSession, url: str) -> tuple[dict[str, float], float]:
    """workqueue_adds_total of each queue by name, and the summed workqueue_depth of all queues."""
    async with session.get(f"{url}/metrics") as response:
        text = (await expect(response, 200)).decode()
    adds: dict[str, float] = {}
    depth = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "workqueue_adds_total":
                adds[sample.labels["name"]] = sample.value
            elif sample.name == "workqueue_depth":
                depth += sample.value
    return adds, depth


async def _metrics(session: aiohttp.ClientSession, url: str) -> dict[str, float]:
    return (await _scrape(session, url))[0]


async def _quiet(session: aiohttp.ClientSession, url: str) -> None:
    """Wait until every work queue is empty and no add happened for a second: the controllers are at
    rest (the root CA ConfigMaps, for one, may still be written after the last ServiceAccount)."""
    deadline = time.perf_counter() + SETTLE_WITHIN
    previous: dict[str, float] | None = None
    while time.perf_counter() < deadline:
        adds, depth = await _scrape(session, url)
        if adds == previous and depth == 0:
            return
        previous = adds
        await asyncio.sleep(1.0)
    raise TimeoutError(f"the controller manager's work queues were still busy after {SETTLE_WITHIN:.0f} s")


async def _healthy(session: aiohttp.ClientSession, url: str, within: float) -> None:
    deadline = time.perf_counter() + within
    while time.perf_counter() < deadline:
        with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError):
            async with session.get(f"{url}/healthz") as response:
                if response.status == 200:
                    return
        await asyncio.sleep(_POLL)
    raise TimeoutError(f"the controller manager's /healthz was not 200 within {within:.0f} s")


async def _default_accounts(session: aiohttp.ClientSession, base: str) -> tuple[int, str]:
    """How many `default` ServiceAccounts exist, and the list's resourceVersion."""
    url = f"{base}/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault"
    async with session.get(url, headers=JSON) as response:
        listed = orjson.loads(await expect(response, 200))
    return len(listed["items"]), listed["metadata"]["resourceVersion"]


async def _settled(session: aiohttp.ClientSession, base: str, expected: int) -> None:
    """Wait until `expected` namespaces have their `default` ServiceAccount."""
    deadline = time.perf_counter() + SETTLE_WITHIN
    while time.perf_counter() < deadline:
        found, _ = await _default_accounts(session, base)
        if found >= expected:
            return
        await asyncio.sleep(_POLL)
    raise TimeoutError(f"{expected - found} namespace(s) without a default ServiceAccount after {SETTLE_WITHIN:.0f} s")


async def _populate(session: aiohttp.ClientSession, base: str, plan: Plan, server_pid: int) -> None:
    clock = CpuClock(lambda: cpu_seconds(server_pid))
    count = plan.controller_namespaces

    async def namespace(index: int) -> None:
        async with session.post(f"{base}/api/v1/namespaces", data=_namespace(f"rest-{index}"), headers=JSON) as r:
            await expect(r, 201)

    async def configmap(index: int) -> None:
        owner, number = divmod(index, CONFIGMAPS_PER_NAMESPACE)
        url = f"{base}/api/v1/namespaces/rest-{owner}/configmaps"
        async with session.post(url, data=_configmap(f"cm-{number}"), headers=JSON) as response:
            await expect(response, 201)

    for operation, total in ((namespace, count), (configmap, count * CONFIGMAPS_PER_NAMESPACE)):
        measured = await drive(operation, count=total, concurrency=plan.populate_concurrency, clock=clock)
        if measured.errors:
            raise RuntimeError(f"{measured.errors} create(s) failed while populating: {measured.first_error}")


class _Arrivals:
    """A watch of every namespace's `default` ServiceAccount, noting when each namespace's arrives."""

    def __init__(self) -> None:
        self.seen: dict[str, float] = {}
        self.task: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()

    async def open(self, session: aiohttp.ClientSession, base: str, resource_version: str) -> None:
        url = (
            f"{base}/api/v1/serviceaccounts?watch=1&allowWatchBookmarks=false"
            f"&fieldSelector=metadata.name%3Ddefault&resourceVersion={resource_version}"
        )
        response = await session.get(url, headers=JSON, timeout=aiohttp.ClientTimeout(total=None))
        if response.status != 200:
            raise RuntimeError(f"the ServiceAccount watch was answered {response.status}")
        self.task = asyncio.create_task(self._read(response))

    async def _read(self, response: aiohttp.ClientResponse) -> None:
        async with response:
            async for line in response.content:
                event = orjson.loads(line)
                if event["type"] == "ADDED":
                    self.seen.setdefault(event["object"]["metadata"]["namespace"], time.perf_counter())
                    self._arrived.set()

    async def wait_for(self, names: set[str], within: float) -> None:
        """Until every one of `names` has arrived, or `within` seconds have passed."""
        deadline = time.perf_counter() + within
        while names - self.seen.keys() and time.perf_counter() < deadline:
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), deadline - time.perf_counter())

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


async def _load(
    session: aiohttp.ClientSession, base: str, seconds: float, arrivals: _Arrivals
) -> tuple[list[float], int, int]:
    """Creates namespaces at CREATE_RATE for `seconds` on a fixed schedule; returns the sorted delays
    from each create request to its ServiceAccount, the creates that failed, and the accounts missing."""
    sent: dict[str, float] = {}
    failures = 0

    async def create(name: str) -> None:
        nonlocal failures
        sent[name] = time.perf_counter()
        try:
            async with session.post(f"{base}/api/v1/namespaces", data=_namespace(name), headers=JSON) as response:
                await expect(response, 201)
        except (aiohttp.ClientError, OSError, RuntimeError):
            failures += 1
            del sent[name]

    started = time.perf_counter()
    tasks = []
    for index in range(int(seconds * CREATE_RATE)):
        await asyncio.sleep(max(0.0, started + index / CREATE_RATE - time.perf_counter()))
        tasks.append(asyncio.create_task(create(f"load-{index}")))
    await asyncio.gather(*tasks)
    await arrivals.wait_for(set(sent), ARRIVAL_WITHIN)
    delays = sorted(arrivals.seen[name] - at for name, at in sent.items() if name in arrivals.seen)
    return delays, failures, len(sent) - len(delays)


def queue_section(
    before: dict[str, float], populated: dict[str, float], loaded: dict[str, float], times: tuple[float, float]
) -> Section:
    """The busiest work queues, by adds under load and then while populating."""
    section = Section("Controllers: work-queue adds per controller", QUEUE_HEADERS)
    populate_seconds, load_seconds = times
    rows = []
    for name, total in loaded.items():
        if total == 0:
            continue
        filling = populated.get(name, 0.0) - before.get(name, 0.0)
        loading = total - populated.get(name, 0.0)
        rows.append((loading, filling, total, name))
    rows.sort(reverse=True)
    for loading, filling, total, name in rows[:TOP_QUEUES]:
        section.add(name, rate(filling / populate_seconds), rate(loading / load_seconds), f"{total:,.0f}")
    section.notes.append(
        f"At most {TOP_QUEUES} queues, the most adds under load first, of the {len(rows)} that had any of the "
        f"{len(loaded)}; `workqueue_adds_total` deltas from the controller manager's /metrics over each phase, "
        "divided by its wall time (populating: from the first create until the queues are empty and quiet)."
    )
    return section


async def run(workdir: Path, plan: Plan) -> tuple[tuple[Section, Section], Facts]:
    count = plan.controller_namespaces
    title = "Controllers: the controller manager at rest and a new namespace's default ServiceAccount"
    section = Section(title, HEADERS)
    server = await start_server(workdir / "controllers")
    port = free_port()
    controllers = start_daemon(
        "svc.controllers",
        workdir / "controller-manager.log",
        f"--kubeconfig={server.data_dir / 'admin.kubeconfig'}",
        "--brand-profile=kubernetes",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={port}",
        "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
        "--kube-api-qps=0",
    )
    metrics_url = f"https://127.0.0.1:{port}"
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    facts: Facts = {}
    try:
        async with (
            open_session(server.credentials.ssl_context(), 256) as session,
            open_session(insecure, 1) as scraper,
        ):
            await _healthy(scraper, metrics_url, 120)
            base = server.url
            before = await _metrics(scraper, metrics_url)
            progress(f"controllers: {count:,} namespaces x {CONFIGMAPS_PER_NAMESPACE} ConfigMaps")
            started = time.perf_counter()
            await _populate(session, base, plan, server.pid)
            existing, _ = await _default_accounts(session, base)
            await _settled(session, base, count + 1)  # `default` namespace's own too, at least
            await _quiet(scraper, metrics_url)
            populate_seconds = time.perf_counter() - started
            populated = await _metrics(scraper, metrics_url)
            section.add(
                f"{count:,} namespaces x {CONFIGMAPS_PER_NAMESPACE} ConfigMaps created, controllers at rest",
                f"{populate_seconds:.1f} s",
                f"{existing:,} default ServiceAccounts right after the last create",
            )
            progress(f"controllers: {IDLE_SECONDS:.0f} s idle")
            idle_start = cpu_seconds(controllers.pid)
            await asyncio.sleep(IDLE_SECONDS)
            idle_cpu = cpu_seconds(controllers.pid) - idle_start
            rss = rss_bytes(controllers.pid)
            facts["controllers rss"] = rss
            facts["controllers idle cpu"] = idle_cpu / IDLE_SECONDS
            section.add("controller manager RSS at rest", size(rss), f"{count:,} namespaces")
            section.add(
                f"controller manager CPU at rest ({IDLE_SECONDS:.0f} s)",
                f"{idle_cpu:.2f} s",
                f"{idle_cpu / IDLE_SECONDS:.1%} of a core",
            )
            _, resource_version = await _default_accounts(session, base)
            arrivals = _Arrivals()
            await arrivals.open(session, base, resource_version)
            progress(f"controllers: {CREATE_RATE:.0f} namespaces/s for {plan.controller_load_seconds:.0f} s")
            clock = CpuClock(lambda: cpu_seconds(server.pid))
            before_load, controllers_before = clock.read(), cpu_seconds(controllers.pid)
            try:
                delays, failures, missing = await _load(session, base, plan.controller_load_seconds, arrivals)
            finally:
                await arrivals.close()
            after_load, controllers_cpu = clock.read(), cpu_seconds(controllers.pid) - controllers_before
            load_seconds = after_load.wall - before_load.wall
            loaded = await _metrics(scraper, metrics_url)
            p50, p99 = percentile(delays, 0.50), percentile(delays, 0.99)
            facts["controllers sa p99"] = p99 if not missing else float("inf")
            shares = cpu_note(
                load_seconds,
                server=after_load.server - before_load.server,
                client=after_load.client - before_load.client,
                rest=max(rest_of_machine(before_load, after_load) - controllers_cpu, 0.0),
            )
            notes = (
                f"{len(delays):,} namespaces; {failures} creates failed, {missing} accounts missing after "
                f"{ARRIVAL_WITHIN:.0f} s; over {load_seconds:.1f} s: {shares}, "
                f"controller manager CPU {cpu_share(controllers_cpu, load_seconds)}"
            )
            section.add(f"default ServiceAccount after create at {CREATE_RATE:.0f}/s (p50)", millis(p50), notes)
            section.add(f"default ServiceAccount after create at {CREATE_RATE:.0f}/s (p99)", millis(p99), "")
            queues = queue_section(before, populated, loaded, (populate_seconds, load_seconds))
    finally:
        stop_daemon(controllers)
        server.stop()
    section.notes.append(
        "Targets (issue 18): RSS and CPU at rest with 10,000 namespaces x 5 objects reported; a new namespace's "
        "default ServiceAccount in under 200 ms p99 under 200 creates/s. The delay runs from just before the "
        "create request to the account's ADDED event on a watch; the controller manager runs its default "
        "controllers with --kube-api-qps=0 (upstream's 20/s could not keep up with 200 namespaces/s)."
    )
    return (section, queues), facts
