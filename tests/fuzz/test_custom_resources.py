"""Fuzzed custom resources against a live server: a CRD with every structural schema feature
(`tests/fuzz/custom.py`), objects with one member retyped or a few members mutated, written by create,
update, the patch types, apply and the scale subresource, then read as lists, tables and by selectable
fields. Never a 500; a refused write leaves the stored object as it was; an accepted one is accepted back.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.custom import GADGET, GADGETS, install
from tests.fuzz.examples import fuzz_settings
from tests.fuzz.probe import Answer, Probe, assert_resubmittable
from tests.fuzz.strategies import fresh_names, json_patch_ops, junk_values, mutated, other_types, retyped
from tests.fuzz.wire import CONTENT_TYPES, decode_body, dumps, encode_body

FORMATS = st.sampled_from(sorted(CONTENT_TYPES))
OPTIONS = st.sampled_from(["", "?fieldValidation=Strict", "?fieldValidation=Ignore", "?dryRun=All"])


@pytest.fixture(scope="module", autouse=True)
def _gadgets(probe: Probe) -> None:
    install(probe)


def gadgets(draw: st.DrawFn, name: str) -> dict[str, Any]:
    obj = copy.deepcopy(GADGET)
    obj["metadata"] = {"name": name}
    how = draw(st.sampled_from(["retyped", "retyped", "mutated", "valid"]))
    if how == "retyped":
        return draw(retyped(obj))
    if how == "mutated":
        return draw(mutated(obj))
    return obj


def _existing(probe: Probe, name: str) -> tuple[str, dict[str, Any]]:
    answer = probe.send_json("POST", GADGETS, {**GADGET, "metadata": {"name": name}})
    assert answer.status == 201, answer.body
    return f"{GADGETS}/{name}", answer.json()


def _check(probe: Probe, answer: Answer, target: str, path: str, before: dict[str, Any] | None) -> None:
    """An accepted write is accepted back; a refused one left the object as it was."""
    if answer.status in (200, 201) and "dryRun" not in target:
        written = decode_body(answer.content_type, answer.body)
        if written.get("kind") == "Gadget":
            assert_resubmittable(probe, GADGETS, written)
    elif answer.status >= 400 and before is not None:
        after = probe.send_json("GET", path).json()
        assert after == before, f"refused with {answer.status} yet changed: {answer.body[:300]!r}"


@fuzz_settings(60)
@given(data=st.data(), fmt=FORMATS, options=OPTIONS)
def test_create(probe: Probe, data: st.DataObject, fmt: str, options: str) -> None:
    obj = gadgets(data.draw, data.draw(fresh_names))
    target = GADGETS + options
    answer = probe.send(
        "POST",
        target,
        headers=[("Content-Type", CONTENT_TYPES[fmt]), ("Accept", "application/json")],
        body=encode_body(obj, fmt),
    )
    _check(probe, answer, target, "", None)


@fuzz_settings(40)
@given(data=st.data(), fmt=FORMATS, options=OPTIONS, subresource=st.sampled_from(["", "/status"]))
def test_update(probe: Probe, data: st.DataObject, fmt: str, options: str, subresource: str) -> None:
    path, stored = _existing(probe, data.draw(fresh_names))
    update = data.draw(st.one_of(retyped(stored), mutated(stored)))
    target = path + subresource + options
    answer = probe.send(
        "PUT",
        target,
        headers=[("Content-Type", CONTENT_TYPES[fmt]), ("Accept", "application/json")],
        body=encode_body(update, fmt),
    )
    _check(probe, answer, target, path, stored)


PATCH_TYPES = ["application/merge-patch+json", "application/json-patch+json", "application/strategic-merge-patch+json"]


@fuzz_settings(40)
@given(data=st.data(), patch_type=st.sampled_from(PATCH_TYPES), subresource=st.sampled_from(["", "", "/status"]))
def test_patch(probe: Probe, data: st.DataObject, patch_type: str, subresource: str) -> None:
    path, stored = _existing(probe, data.draw(fresh_names))
    if patch_type == "application/json-patch+json":
        patch = data.draw(json_patch_ops())
    else:
        part = {key: stored[key] for key in ("spec", "status") if key in stored}
        patch = data.draw(st.one_of(retyped(part), mutated(part), other_types))
    target = path + subresource
    answer = probe.send("PATCH", target, headers=[("Content-Type", patch_type)], body=dumps(patch))
    _check(probe, answer, target, path, stored)


@fuzz_settings(40)
@given(data=st.data(), fmt=st.sampled_from(["yaml", "json"]), exists=st.booleans(), force=st.booleans())
def test_apply(probe: Probe, data: st.DataObject, fmt: str, exists: bool, force: bool) -> None:
    name = data.draw(fresh_names)
    path, stored = _existing(probe, name) if exists else (f"{GADGETS}/{name}", None)
    obj = gadgets(data.draw, name)
    body = yaml.safe_dump(obj).encode() if fmt == "yaml" else dumps(obj)
    target = f"{path}?fieldManager=fuzz" + ("&force=true" if force else "")
    answer = probe.send("PATCH", target, headers=[("Content-Type", "application/apply-patch+yaml")], body=body)
    _check(probe, answer, target, path, stored)


SCALE = {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}}


@fuzz_settings(30)
@given(data=st.data(), method=st.sampled_from(["PUT", "PATCH"]))
def test_scale(probe: Probe, data: st.DataObject, method: str) -> None:
    path, stored = _existing(probe, data.draw(fresh_names))
    if method == "PUT":
        scale = probe.send_json("GET", path + "/scale").json()
        body = data.draw(st.one_of(retyped(scale), mutated(scale)))
        content_type = "application/json"
    else:
        body = data.draw(st.one_of(retyped(SCALE), mutated(SCALE), other_types))
        content_type = "application/merge-patch+json"
    answer = probe.send(method, path + "/scale", headers=[("Content-Type", content_type)], body=dumps(body))
    _check(probe, answer, path + "/scale", path, stored)


TABLE = "application/json;as=Table;g=meta.svc;v=v1"
field_values = st.one_of(st.sampled_from(["fast", "slow", "true", "false", "", "1"]), junk_values)


@fuzz_settings(20)
@given(
    data=st.data(),
    field=st.sampled_from(["spec.mode", "spec.enabled", "spec.replicas", "metadata.name", "spec"]),
    operator=st.sampled_from(["=", "==", "!="]),
    accept=st.sampled_from([TABLE, "application/json", "application/yaml"]),
)
def test_read(probe: Probe, data: st.DataObject, field: str, operator: str, accept: str) -> None:
    """Lists and tables over the odd objects the other tests stored (a page: an exploring run stores
    thousands), filtered by selectable fields."""
    probe.send_json("POST", GADGETS, gadgets(data.draw, data.draw(fresh_names)))
    selector = f"{field}{operator}{data.draw(field_values)}"
    probe.send("GET", f"{GADGETS}?limit=100&fieldSelector={quote(selector)}", headers=[("Accept", accept)])
