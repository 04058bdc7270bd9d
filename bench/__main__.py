"""`python -m bench [--quick] [--only ...]`: run the scenarios and anchors, print and save the report.

The server scenarios share one server (CRUD, then lists, then the watch fan-out); memory and
cold start get a fresh one; the anchors run after, with nothing else busy. The report goes to
stdout and to bench/results/<date>.md (<date>-quick.md for a quick run, so it never replaces a
full one).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sqlite3
import sys
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import uvloop

from bench import (
    admission,
    admission_policy,
    aggregator,
    apf,
    audit,
    authn,
    authz,
    cel,
    connections,
    controllers,
    conversion,
    crd,
    crud,
    encode,
    encryption,
    etcd_server,
    http2,
    lists,
    memory,
    patches,
    snapshots,
    validation,
    watch,
    watch_memory,
    webhooks,
    workloads,
)
from bench.anchors import etcd, http_ceiling
from bench.anchors import sqlite as sqlite_anchor
from bench.client import ATTEMPTS
from bench.plan import FULL, QUICK, Plan
from bench.progress import progress
from bench.report import Facts, Section, ratios_section, render_report, targets_section
from bench.server import start_server

T = TypeVar("T")
Sections = dict[str, Section]

SCENARIOS = (
    "crud",
    "patch",
    "lists",
    "watch",
    "http2",
    "memory",
    "connections",
    "watchmem",
    "http",
    "etcd",
    "etcdserver",
    "sqlite",
    "encode",
    "cel",
    "conversion",
    "authz",
    "admission",
    "apf",
    "vap",
    "authn",
    "snapshots",
    "workloads",
    "webhooks",
    "crd",
    "encryption",
    "audit",
    "aggregator",
    "controllers",
    "validation",
)
RESULTS = Path(__file__).resolve().parent / "results"
# The bench's objects as the server returns them (its metadata included): the anchors' value sizes
# when the scenarios that measure them are not run.
CONFIGMAP_BYTES = 1_100
POD_BYTES = 3_300


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts, finishes in under a minute")
    parser.add_argument(
        "--only",
        default=",".join(SCENARIOS),
        help=f"comma-separated scenarios to run (default: all of {','.join(SCENARIOS)})",
    )
    parser.add_argument("--output", type=Path, help="where to write the report (default: bench/results/<date>.md)")
    arguments = parser.parse_args(argv)
    chosen = [name.strip() for name in arguments.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(SCENARIOS))
    if unknown or not chosen:
        parser.error(
            f"--only: unknown scenario(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(SCENARIOS)}"
        )
    arguments.only = chosen
    return arguments


def _machine() -> str:
    model = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return f"{model}, {os.cpu_count()} cores, {memory_kb / (1 << 20):.0f} GB RAM"


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def _guarded(name: str, failed: Section, scenario: Awaitable[T]) -> T | None:
    """The scenario's result, or None with a row in `failed`: one broken scenario must not hide the others."""
    try:
        return await scenario
    except Exception as error:
        progress(f"{name}: failed: {type(error).__name__}: {error}")
        failed.add(name, f"{type(error).__name__}: {error}")
        return None


async def _server_scenarios(workdir: Path, plan: Plan, only: list[str], sections: Sections, facts: Facts) -> None:
    """CRUD, lists and watch on one server, then the HTTP ceiling on its certificates."""
    failed = sections["failed"]
    server = await _guarded("server start", failed, start_server(workdir / "server"))
    if server is None:
        return
    progress(f"svc-apiserver pid {server.pid} ready on {server.url} in {server.startup_seconds:.2f} s")
    try:
        for name, module in (
            ("crud", crud),
            ("patch", patches),
            ("lists", lists),
            ("watch", watch),
            ("http2", http2),
        ):
            if name in only:
                result = await _guarded(name, failed, module.run(server, plan))
                if result is not None:
                    sections[name], found = result
                    facts.update(found)
    finally:
        server.stop()
    if "http" in only:
        result = await _guarded("http", failed, http_ceiling.run(server, plan))
        if result is not None:
            sections["http"], found = result
            facts.update(found)


async def _other_scenarios(workdir: Path, plan: Plan, only: list[str], sections: Sections, facts: Facts) -> None:
    """Memory and cold start, idle connections and watch memory, each on a fresh server; the storage
    anchors; then in-process encoding."""
    failed = sections["failed"]
    if "memory" in only:
        result = await _guarded("memory", failed, memory.run(workdir, plan))
        if result is not None:
            (sections["memory"], sections["start"]), found = result
            facts.update(found)
    if "connections" in only:
        result = await _guarded("connections", failed, connections.run(workdir, plan))
        if result is not None:
            sections["connections"], found = result
            facts.update(found)
    if "watchmem" in only:
        result = await _guarded("watchmem", failed, watch_memory.run(workdir, plan))
        if result is not None:
            sections["watchmem"], found = result
            facts.update(found)
    if "authz" in only:
        result = await _guarded("authz", failed, authz.run(workdir, plan))
        if result is not None:
            sections["authz"], found = result
            facts.update(found)
    for name, module in (
        ("admission", admission),
        ("apf", apf),
        ("vap", admission_policy),
        ("authn", authn),
        ("snapshots", snapshots),
        ("crd", crd),
        ("webhooks", webhooks),
        ("aggregator", aggregator),
        ("workloads", workloads),
        ("encryption", encryption),
        ("audit", audit),
        ("validation", validation),
    ):
        if name in only:
            result = await _guarded(name, failed, module.run(workdir, plan))
            if result is not None:
                sections[name], found = result
                facts.update(found)
    if "controllers" in only:
        result = await _guarded("controllers", failed, controllers.run(workdir, plan))
        if result is not None:
            (sections["controllers"], sections["controller queues"]), found = result
            facts.update(found)
    configmap_bytes = int(facts.get("configmap bytes", CONFIGMAP_BYTES))
    pod_bytes = int(facts.get("pod bytes", POD_BYTES))
    if "sqlite" in only:
        sections["sqlite"], found = sqlite_anchor.run(workdir, plan.anchor_ops[1], configmap_bytes)
        facts.update(found)
    if "etcd" in only:
        etcd_run = etcd.run(workdir / "etcd", plan, value_bytes=configmap_bytes, list_value_bytes=pod_bytes)
        result = await _guarded("etcd", failed, etcd_run)
        if result is not None:
            sections["etcd"], found = result
            facts.update(found)
    if "etcdserver" in only:
        result = await _guarded("etcdserver", failed, etcd_server.run(workdir, plan))
        if result is not None:
            sections["etcdserver"], found = result
            facts.update(found)
    if "encode" in only:
        result = await _guarded("encode", failed, encode.run_in_fresh_process())
        if result is not None:
            sections["encode"], found = result
            facts.update(found)
    if "cel" in only:
        sections["cel"], found = cel.run()
        facts.update(found)
    if "conversion" in only:
        result = await _guarded("conversion", failed, conversion.run())
        if result is not None:
            sections["conversion"], found = result
            facts.update(found)


async def run(plan: Plan, only: list[str]) -> str:
    """Runs the chosen scenarios and returns the Markdown report."""
    started = datetime.datetime.now()
    load_before = _load()
    sections: Sections = {"failed": Section("Scenarios that failed", ("scenario", "error"))}
    facts: Facts = {}
    with tempfile.TemporaryDirectory(prefix="svc-bench-") as directory:
        workdir = Path(directory)
        if {"crud", "patch", "lists", "watch", "http2", "http"} & set(only):
            await _server_scenarios(workdir, plan, only, sections, facts)
        await _other_scenarios(workdir, plan, only, sections, facts)
    order = ("crud", "http", "etcd", "sqlite", "patch", "lists", "encode", "watch", "connections", "memory", "start")
    order = (
        "crud",
        "http",
        "etcd",
        "etcdserver",
        "sqlite",
        "patch",
        "lists",
        "encode",
        "cel",
        "conversion",
        "watch",
        "http2",
        "watchmem",
        "memory",
        "start",
        "authz",
        "admission",
        "apf",
        "vap",
        "authn",
        "snapshots",
        "workloads",
        "webhooks",
        "crd",
        "encryption",
        "audit",
        "aggregator",
        "controllers",
        "controller queues",
        "validation",
    )
    chosen = [sections[name] for name in order if name in sections]
    chosen += [ratios_section(facts), targets_section(facts)]
    if sections["failed"].rows:
        chosen.insert(0, sections["failed"])
    elapsed = datetime.datetime.now() - started
    preamble = [
        f"- mode: {plan.name}{' (smaller counts; targets are read against them)' if plan is QUICK else ''}; "
        f"scenarios: {', '.join(only)}; took {elapsed.total_seconds():.0f} s",
        f"- machine: {_machine()}; load average {load_before} before, {_load()} after",
        f"- Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}; server and load process on "
        "the same machine over loopback TLS (one asyncio + uvloop load process, aiohttp client, keep-alive)",
        "- latencies are per request as the client sees them; CPU shares are of one core over the batch; "
        "(saturated) marks a process at 90% of a core or more (the server and this client run one event loop each; "
        "etcd can use both cores); (disturbed) marks a batch during which other processes took a quarter of a core "
        "or more; a disturbed batch that can run again (reads, updates, puts) is repeated up to "
        f"{ATTEMPTS} times and the least disturbed run kept",
    ]
    return render_report(f"svc benchmark, {started:%Y-%m-%d %H:%M}", preamble, chosen)


def main(argv: list[str] | None = None) -> None:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    plan = QUICK if arguments.quick else FULL
    report = uvloop.run(run(plan, arguments.only))
    print(report)
    suffix = "-quick" if arguments.quick else ""
    output = arguments.output or RESULTS / f"{datetime.date.today():%Y-%m-%d}{suffix}.md"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(report)
    progress(f"report written to {output}")


if __name__ == "__main__":
    main()
