"""Workloads of the apps group: Deployment, ReplicaSet, StatefulSet and DaemonSet.

The StatefulSet's `maxUnavailable` is left unset: its gate (MaxUnavailableStatefulSet) is off by
default in 1.36. The claim templates of a StatefulSet get a claim's defaults, including the `Pending`
phase upstream writes into each template's status.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.pod_spec import template
from svc.api.defaults.volumes import claim_spec
from svc.api.defaults.walk import Obj, child, child_or_new, entries, fill, fill_nil

ROLLING_UPDATE: Final = "RollingUpdate"
REVISION_HISTORY_LIMIT: Final = 10
PROGRESS_DEADLINE_SECONDS: Final = 600
_RETAIN: Final = "Retain"


def _rolling_strategy(spec: Obj, key: str, *, max_unavailable: int | str, max_surge: int | str) -> None:
    """A strategy without a type rolls; a rolling one gets the bounds the client left out."""
    strategy = child_or_new(spec, key)
    if strategy is None:
        return
    fill(strategy, "type", ROLLING_UPDATE)
    rolling = child_or_new(strategy, "rollingUpdate") if strategy["type"] == ROLLING_UPDATE else None
    if rolling is not None:
        fill_nil(rolling, "maxUnavailable", max_unavailable)
        fill_nil(rolling, "maxSurge", max_surge)


def deployment(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill_nil(spec, "replicas", 1)
    _rolling_strategy(spec, "strategy", max_unavailable="25%", max_surge="25%")
    fill_nil(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT)
    fill_nil(spec, "progressDeadlineSeconds", PROGRESS_DEADLINE_SECONDS)
    template(child(spec, "template"))


def replica_set(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill_nil(spec, "replicas", 1)
    template(child(spec, "template"))


def daemon_set(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    _rolling_strategy(spec, "updateStrategy", max_unavailable=1, max_surge=0)
    fill_nil(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT)
    template(child(spec, "template"))


def _stateful_update_strategy(spec: Obj) -> None:
    """An unset type becomes a rolling update (with partition 0 unless the client chose one); an
    explicit rolling update without parameters keeps none."""
    strategy = child_or_new(spec, "updateStrategy")
    if strategy is None:
        return
    if not strategy.get("type"):
        strategy["type"] = ROLLING_UPDATE
        child_or_new(strategy, "rollingUpdate")
    rolling = child(strategy, "rollingUpdate")
    if strategy["type"] == ROLLING_UPDATE and rolling is not None:
        fill_nil(rolling, "partition", 0)


def _claim_template(claim: Obj) -> None:
    claim_spec(child(claim, "spec"))
    status = child_or_new(claim, "status")
    if status is not None:
        fill(status, "phase", "Pending")


def stateful_set(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill(spec, "podManagementPolicy", "OrderedReady")
    _stateful_update_strategy(spec)
    retention = child_or_new(spec, "persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        fill(retention, "whenDeleted", _RETAIN)
        fill(retention, "whenScaled", _RETAIN)
    fill_nil(spec, "replicas", 1)
    fill_nil(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT)
    template(child(spec, "template"))
    for claim in entries(spec, "volumeClaimTemplates"):
        _claim_template(claim)
