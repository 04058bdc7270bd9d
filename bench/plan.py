"""How much each mode does: the full run and the `--quick` one (well under a minute)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """Counts for one run; the scenarios read nothing else, so the two modes differ only here."""

    name: str
    crud_ops: dict[int, int]
    list_objects: int
    list_repeats: int
    watchers: int
    watch_seconds: float
    watch_rate: float
    memory_steps: tuple[int, ...]
    anchor_ops: dict[int, int]
    patch_ops: int
    idle_watches: int
    watch_memory_watchers: int
    watch_memory_objects: int
    populate_concurrency: int = 64
    authz_policy: tuple[int, int, int] = (100, 1_000, 5_000)
    """Namespaces, Roles (each with its RoleBinding) and ClusterRole rules of the authorization scenario."""
    snapshot_objects: int = 10_000
    snapshot_restores: int = 5
    rollout_replicas: int = 1_000
    """Replicas of the one big Deployment of the workloads scenario."""
    rollout_deployments: int = 100
    """Deployments of 10 replicas updated at once in the workloads scenario."""
    crd_installs: int = 10
    """CRDs installed one after another, each timed from create to served."""
    crd_batch: int = 100
    """CRDs installed at once, timed until all are served."""
    controller_namespaces: int = 10_000
    """Namespaces (each with 5 ConfigMaps) the controller manager holds at rest in the controllers scenario."""
    controller_load_seconds: float = 10.0
    """How long namespaces are created at 200/s while their default ServiceAccounts are timed."""
    validation_iterations: int = 2_000
    """Calls of a kind's `validate` per timed round in the validation scenario."""


FULL = Plan(
    name="full",
    crud_ops={1: 2_000, 32: 10_000},
    list_objects=10_000,
    list_repeats=10,
    watchers=1_000,
    watch_seconds=20.0,
    watch_rate=200.0,
    memory_steps=(10_000, 100_000),
    anchor_ops={1: 2_000, 32: 10_000},
    patch_ops=200,
    idle_watches=5_000,
    watch_memory_watchers=2_000,
    watch_memory_objects=1_000,
)

QUICK = Plan(
    name="quick",
    crud_ops={1: 300, 32: 1_500},
    list_objects=2_000,
    list_repeats=5,
    watchers=100,
    watch_seconds=5.0,
    watch_rate=200.0,
    memory_steps=(2_000,),
    anchor_ops={1: 300, 32: 1_500},
    patch_ops=40,
    idle_watches=500,
    watch_memory_watchers=300,
    watch_memory_objects=1_000,
    authz_policy=(20, 200, 1_000),
    snapshot_objects=2_000,
    snapshot_restores=3,
    rollout_replicas=200,
    rollout_deployments=20,
    crd_installs=5,
    controller_namespaces=500,
    controller_load_seconds=3.0,
    validation_iterations=300,
)
