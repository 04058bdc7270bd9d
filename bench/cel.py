"""CEL rule evaluation in process: a typical CRD rule set (5 rules) over a 2 KB custom object.

The rules are compiled once, as a CRD's are when its schema is loaded; each object is then
evaluated against all five with the runtime cost limit upstream gives a CRD rule, as the
validation of a create or update does. Each object is distinct (its own dicts), so nothing is
cached between objects. The figure is the best of a few runs, so that a run another process
disturbed does not count.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import orjson

from bench import crd_validation
from bench.report import Facts, Section, rate
from svc.machinery.cel import environment

OBJECTS = 5_000
REPEATS = 5
# Upstream's per-call limit for a CRD validation rule (apiextensions PerCallLimit).
PER_CALL_LIMIT = 1_000_000
RULES = (
    "self.spec.replicas <= self.spec.maxReplicas",
    "self.spec.minReplicas <= self.spec.replicas",
    "self.spec.ports.all(p, p.port > 0 && p.port < 65536)",
    "self.metadata.name.size() < 64 && self.metadata.name.matches('^[a-z0-9-]+$')",
    "!has(self.spec.paused) || self.spec.image.startsWith('registry.example.com/')",
)


def widget(index: int) -> dict[str, Any]:
    """A custom object of about 2 KB of JSON, shaped like an operator's workload CRD."""
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": f"widget-{index}",
            "namespace": "default",
            "uid": f"00000000-0000-0000-0000-{index:012d}",
            "resourceVersion": str(1000 + index),
            "labels": {f"app.example.com/label-{i}": f"value-{i}" for i in range(8)},
            "annotations": {f"example.com/note-{i}": "n" * 48 for i in range(11)},
        },
        "spec": {
            "replicas": 3,
            "minReplicas": 1,
            "maxReplicas": 10,
            "image": "registry.example.com/team/widget:1.25.3",
            "ports": [{"name": f"port-{i}", "port": 8000 + i, "protocol": "TCP"} for i in range(12)],
            "tags": ["blue", "green", "canary"],
        },
    }


def measure(count: int = OBJECTS, repeats: int = REPEATS) -> tuple[float, int]:
    """Best seconds per object over `repeats` runs, and the object's JSON size."""
    env = environment(frozenset({"self", "oldSelf"}))
    programs = [env.compile(rule) for rule in RULES]
    objects = [widget(i) for i in range(count)]
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for obj in objects:
            activation = {"self": obj}
            for program in programs:
                if program.evaluate(activation, cost_limit=PER_CALL_LIMIT) is not True:
                    raise AssertionError(f"{program.expression} rejected {obj['metadata']['name']}")
        best = min(best, (time.perf_counter() - started) / count)
    return best, len(orjson.dumps(objects[0]))


def run(count: int = OBJECTS, repeats: int = REPEATS) -> tuple[Section, Facts]:
    seconds, size = measure(count, repeats)
    section = Section(
        f"CEL: {len(RULES)} CRD validation rules over {count:,} objects in process (best of {repeats})",
        ("work", "per object", "throughput"),
    )
    section.add(
        f"{len(RULES)} rules, compiled once, over a {size:,} byte object",
        f"{seconds * 1e6:.1f} µs",
        rate(1 / seconds, " objects/s"),
    )
    custom = crd_validation.measure(widget, min(count, crd_validation.OBJECTS), repeats)
    for label, key in (
        ("custom resource validate (schema: 10 spec properties, 3 CEL rules), create", "crd validate"),
        ("custom resource prune + default + validate (copy of the object included)", "crd create path"),
        ("custom resource validate on update, with ratcheting against the old object", "crd validate update"),
    ):
        section.add(label, f"{custom[key] * 1e6:.1f} µs", rate(1 / custom[key], " objects/s"))
    section.notes.append("rules: " + "; ".join(f"`{rule}`" for rule in RULES))
    section.notes.append(
        f"each evaluation runs under upstream's per-call cost limit ({PER_CALL_LIMIT:,}); target: under 50 µs"
    )
    section.notes.append("custom resource rows: `svc.api.crd.schema.CustomResourceSchema` on the same 2 KB object")
    return section, {"cel rules per object": seconds, **custom}


if __name__ == "__main__":
    section, facts = run(*(int(arg) for arg in sys.argv[1:3]))
    print(section.title)
    for row in section.rows:
        print(" | ".join(row))
