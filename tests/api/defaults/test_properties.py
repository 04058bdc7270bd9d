"""Invariants of `apply_defaults` over generated objects (seed objects with parts replaced by
arbitrary JSON): applying twice equals applying once; a value the client set is never replaced (Go's
zero values excepted, which upstream reads as unset, and the rules that rewrite on purpose); malformed
objects never make it raise, since both properties run it on them; non-objects are refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svc.api.brand import KUBERNETES
from svc.api.defaults import apply_defaults, has_defaults
from svc.api.defaults.quantities import as_quantity, rounded
from svc.api.defaults.walk import is_zero
from tests.api.defaults.seeds import SEEDS

# Field names the defaulters read, for the values that replace parts of a seed.
_KEYS = [
    "spec", "template", "metadata", "labels", "containers", "initContainers", "ephemeralContainers",
    "volumes", "resources", "limits", "requests", "ports", "protocol", "targetPort", "port", "type",
    "sessionAffinity", "sessionAffinityConfig", "clientIP", "timeoutSeconds", "livenessProbe", "httpGet",
    "grpc", "env", "valueFrom", "fieldRef", "image", "imagePullPolicy", "hostNetwork", "containerPort",
    "hostPort", "strategy", "updateStrategy", "rollingUpdate", "replicas", "selector", "completions",
    "parallelism", "podFailurePolicy", "rules", "onPodConditions", "status", "jobTemplate", "behavior",
    "scaleUp", "metrics", "secret", "configMap", "projected", "sources", "emptyDir", "hostPath", "rbd",
    "capacity", "subsets", "max", "min", "default", "defaultRequest", "hard", "roleRef", "subjects",
    "kind", "webhooks", "clientConfig", "service", "matchConstraints", "names", "conversion", "limited",
    "limitResponse", "queuing", "devices", "exactly", "firstAvailable", "count", "volumeClaimTemplates",
    "restartPolicy", "apiVersion", "cpu", "memory", "hugepages-2Mi", "egress", "parameters", "source",
    "inlineVolumeSpec", "backoffLimitPerIndex",
]  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3000),
    st.sampled_from(["", "1", "500m", "0.5", "1Gi", "100u", "x", "nginx", "ClientIP", "None", "RollingUpdate"]),
    st.sampled_from(["Always", "LoadBalancer", "NodePort", "Container", "User", "ExactCount", "v1", "autoscaling/v1"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5),
    ),
    max_leaves=40,
)


def _slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) pair inside `value`, the places a mutation may hit."""
    found: list[tuple[Any, Any]] = []
    pairs: Any = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in pairs:
        found.append((value, key))
        found.extend(_slots(item))
    return found


@st.composite
def _objects(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """A seed object with a few of its fields replaced by arbitrary JSON, removed or added."""
    group, kind, seed = draw(st.sampled_from(SEEDS))
    obj = copy.deepcopy(seed)
    for _ in range(draw(st.integers(0, 4))):
        container, key = draw(st.sampled_from([(obj, draw(st.sampled_from(_KEYS))), *_slots(obj)]))
        if isinstance(container, dict) and draw(st.booleans()):
            container.pop(key, None)
        else:
            container[key] = draw(_VALUES)
    return group, kind, obj


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _apply(group: str, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    apply_defaults(group, kind, result, profile=KUBERNETES)
    return result


def _leaves(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(value, dict) and value:
        pairs: Any = value.items()
    elif isinstance(value, list) and value:
        pairs = ((str(index), item) for index, item in enumerate(value))
    else:
        return {path: value}
    found: dict[tuple[str, ...], Any] = {}
    for key, item in pairs:
        found.update(_leaves(item, (*path, key)))
    return found


def _kept(before: Any, after: Any) -> bool:
    """Equal, or the same quantity rounded to millis and written canonically (resource lists)."""
    if before == after:
        return True
    old, new = as_quantity(before), as_quantity(after)
    return old is not None and new is not None and rounded(old) == new


@_SETTINGS
@given(case=_objects())
def test_applying_twice_equals_applying_once(case: tuple[str, str, dict[str, Any]]) -> None:
    group, kind, obj = case
    once = _apply(group, kind, obj)
    assert _apply(group, kind, once) == once


@_SETTINGS
@given(case=_objects())
def test_values_the_client_set_are_kept(case: tuple[str, str, dict[str, Any]]) -> None:
    group, kind, obj = case
    after = _leaves(_apply(group, kind, obj))
    for path, value in _leaves(obj).items():
        # A Service's affinity config is dropped or replaced on purpose, as upstream does.
        if not is_zero(value) and value not in ({}, []) and "sessionAffinityConfig" not in path:
            assert _kept(value, after.get(path)), path


def test_every_seeded_kind_has_defaults() -> None:
    assert all(has_defaults(group, kind) for group, kind, _ in SEEDS)


@pytest.mark.parametrize("obj", [None, [], "Pod", 3])
def test_a_non_object_is_refused(obj: Any) -> None:
    with pytest.raises(TypeError, match="expected a JSON object"):
        apply_defaults("", "Pod", obj, profile=KUBERNETES)
