"""The garbage collector's graph: which uids each change sends to a decision."""

from __future__ import annotations

from svc.controllers.gc_graph import Graph, Identity


def obj(uid: str, *owners: str, finalizers: tuple[str, ...] = (), deleting: bool = False, block: bool = False) -> dict:
    metadata: dict = {"uid": uid, "name": uid, "namespace": "ns"}
    if owners:
        metadata["ownerReferences"] = [{"uid": o, "blockOwnerDeletion": block} for o in owners]
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata}


def at(uid: str) -> Identity:
    return Identity("", "v1", "configmaps", "ns", uid)


def test_a_dependent_whose_owner_is_unseen_is_checked_and_one_with_a_seen_owner_is_not() -> None:
    graph = Graph()
    assert graph.observe(at("d1"), obj("d1", "o")).delete == {"d1"}
    graph.observe(at("o"), obj("o"))
    assert graph.observe(at("d2"), obj("d2", "o")).delete == set()
    assert [d.uid for d in graph.dependents("o")] == ["d1", "d2"]


def test_a_deleted_owner_sends_its_dependents_to_be_checked() -> None:
    graph = Graph()
    graph.observe(at("o"), obj("o"))
    graph.observe(at("d"), obj("d", "o"))
    assert graph.forget(obj("o")).delete == {"d"}


def test_a_foreground_owner_checks_itself_and_its_dependents_and_waits_for_blocking_ones() -> None:
    graph = Graph()
    graph.observe(at("o"), obj("o"))
    graph.observe(at("d"), obj("d", "o", block=True))
    graph.observe(at("free"), obj("free", "o"))
    work = graph.observe(at("o"), obj("o", finalizers=("foregroundDeletion",), deleting=True))
    assert work.delete == {"o", "d", "free"}
    assert [d.uid for d in graph.blocking_dependents("o")] == ["d"]
    assert graph.forget(obj("d")).delete == {"o"}


def test_an_orphaning_owner_goes_to_the_orphan_queue() -> None:
    graph = Graph()
    graph.observe(at("o"), obj("o"))
    assert graph.observe(at("o"), obj("o", finalizers=("orphan",), deleting=True)).orphan == {"o"}


def test_a_dependent_of_an_owner_seen_in_another_namespace_is_checked() -> None:
    graph = Graph()
    graph.observe(Identity("", "v1", "configmaps", "elsewhere", "o"), obj("o"))
    assert graph.observe(at("d"), obj("d", "o")).delete == {"d"}
    assert graph.observe(Identity("", "v1", "persistentvolumes", "", "pv"), obj("pv", "o")).delete == {"pv"}
