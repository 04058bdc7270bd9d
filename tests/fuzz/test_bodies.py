"""Fuzzed bodies against a live server: creates, updates, the three patch types and server-side apply,
in JSON, YAML, Protobuf and CBOR, valid objects of several kinds with mutations, and garbage.

Beyond "never a 500, errors are Status": whatever the server accepts and stores it must accept back
(`assert_resubmittable`), so no request can leave an object that the same server would refuse.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.examples import fuzz_settings
from tests.fuzz.probe import Answer, Probe, assert_resubmittable
from tests.fuzz.strategies import (
    BASES,
    KINDS,
    collection_path,
    fresh_names,
    json_patch_ops,
    json_values,
    merge_patches,
    mutated,
    objects,
    retyped,
)
from tests.fuzz.wire import CONTENT_TYPES, SELF_DESCRIBED_CBOR, decode_body, dumps, encode_body

FORMATS = st.sampled_from(sorted(CONTENT_TYPES))
WRITE_OPTIONS = st.sampled_from(
    ["", "?fieldValidation=Strict", "?fieldValidation=Warn", "?fieldValidation=Ignore", "?dryRun=All", "?pretty=true"]
)
garbage = st.one_of(
    st.binary(max_size=64),
    json_values.map(dumps),
    st.sampled_from(
        [
            b"",
            b"null",
            b"[]",
            b'"x"',
            b"{}",
            b'{"apiVersion":"v1"}',
            b'{"kind":"ConfigMap","apiVersion":"v1","metadata":[]}',
            b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":1}}',
            b"a: &a [*a]",
            b"--- \n...\n---\nx: 1",
            b"k8s\x00",
            b"k8s\x00\x0a\x02v1\x12\x09ConfigMap",
            SELF_DESCRIBED_CBOR,
            SELF_DESCRIBED_CBOR + b"\xa1",
            b"\xa1\x61a\xf9\x7e\x00",
        ]
    ),
)


def _written(answer: Answer) -> dict[str, Any] | None:
    """The object a successful write answered with, or None for a refusal."""
    if answer.status not in (200, 201):
        return None
    obj = decode_body(answer.content_type, answer.body)
    assert isinstance(obj, dict) and isinstance(obj.get("metadata"), dict), obj
    return obj


def _check_write(probe: Probe, resource: str, answer: Answer, target: str) -> None:
    written = _written(answer)
    if written is not None and "dryRun" not in target:
        assert_resubmittable(probe, collection_path(resource), written)


def _existing(probe: Probe, resource: str, name: str) -> str:
    """Create the valid base object of `resource` as `name` and return its path."""
    collection = collection_path(resource)
    answer = probe.send_json("POST", collection, {**BASES[resource], "metadata": {"name": name}})
    assert answer.status == 201, answer.body
    return f"{collection}/{name}"


@fuzz_settings(600)
@given(data=st.data(), resource=st.sampled_from(KINDS), fmt=FORMATS, options=WRITE_OPTIONS)
def test_create(probe: Probe, data: st.DataObject, resource: str, fmt: str, options: str) -> None:
    obj = data.draw(objects(resource))
    target = collection_path(resource) + options
    headers = [
        ("Content-Type", CONTENT_TYPES[fmt]),
        ("Accept", data.draw(st.sampled_from(list(CONTENT_TYPES.values())))),
    ]
    answer = probe.send("POST", target, headers=headers, body=encode_body(obj, fmt))
    _check_write(probe, resource, answer, target)


@fuzz_settings(300)
@given(data=st.data(), resource=st.sampled_from(KINDS), fmt=FORMATS, options=WRITE_OPTIONS)
def test_update(probe: Probe, data: st.DataObject, resource: str, fmt: str, options: str) -> None:
    path = _existing(probe, resource, data.draw(fresh_names))
    stored = probe.send_json("GET", path).json()
    update = data.draw(mutated(stored))
    headers = [("Content-Type", CONTENT_TYPES[fmt]), ("Accept", "application/json")]
    target = path + data.draw(st.sampled_from(["", "/status"])) + options
    answer = probe.send("PUT", target, headers=headers, body=encode_body(update, fmt))
    _check_write(probe, resource, answer, target)


@fuzz_settings(50)
@given(data=st.data(), resource=st.sampled_from(KINDS), fmt=FORMATS, subresource=st.sampled_from(["", "/status"]))
def test_retyped_update(probe: Probe, data: st.DataObject, resource: str, fmt: str, subresource: str) -> None:
    """The stored object with one member of another type (int64's bounds and past them among them):
    refused with a Status, and then the stored object is as it was."""
    path = _existing(probe, resource, data.draw(fresh_names))
    stored = probe.send_json("GET", path).json()
    headers = [("Content-Type", CONTENT_TYPES[fmt]), ("Accept", "application/json")]
    answer = probe.send("PUT", path + subresource, headers=headers, body=encode_body(data.draw(retyped(stored)), fmt))
    if answer.status >= 400:
        after = probe.send_json("GET", path).json()
        assert after == stored, f"refused with {answer.status} yet changed: {answer.body[:300]!r}"
    else:
        _check_write(probe, resource, answer, path)


PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"]


@fuzz_settings(450)
@given(data=st.data(), resource=st.sampled_from(KINDS), patch_type=st.sampled_from(PATCH_TYPES), options=WRITE_OPTIONS)
def test_patch(probe: Probe, data: st.DataObject, resource: str, patch_type: str, options: str) -> None:
    path = _existing(probe, resource, data.draw(fresh_names))
    stored = probe.send_json("GET", path).json()
    if patch_type == "application/json-patch+json":
        patch = data.draw(json_patch_ops())
    else:
        patch = data.draw(merge_patches(stored))
    target = path + data.draw(st.sampled_from(["", "", "/status"])) + options
    answer = probe.send("PATCH", target, headers=[("Content-Type", patch_type)], body=dumps(patch))
    _check_write(probe, resource, answer, target)


@fuzz_settings(450)
@given(
    data=st.data(),
    resource=st.sampled_from(KINDS),
    fmt=st.sampled_from(["yaml", "json", "cbor"]),
    query=st.sampled_from(
        ["?fieldManager=fuzz", "?fieldManager=fuzz&force=true", "?fieldManager=other", "", "?force=x"]
    ),
)
def test_apply(probe: Probe, data: st.DataObject, resource: str, fmt: str, query: str) -> None:
    name = data.draw(fresh_names)
    obj = data.draw(objects(resource, name=name))
    if data.draw(st.booleans()):
        _existing(probe, resource, name)
    content_type = "application/apply-patch+cbor" if fmt == "cbor" else "application/apply-patch+yaml"
    body = encode_body(obj, fmt) if fmt != "yaml" else yaml.safe_dump(obj).encode()
    target = f"{collection_path(resource)}/{name}{query}"
    answer = probe.send("PATCH", target, headers=[("Content-Type", content_type)], body=body)
    _check_write(probe, resource, answer, target)


@fuzz_settings(400)
@given(
    method=st.sampled_from(["POST", "PUT", "PATCH"]),
    resource=st.sampled_from(KINDS),
    content_type=st.sampled_from(
        [*CONTENT_TYPES.values(), *PATCH_TYPES, "application/apply-patch+yaml", "application/apply-patch+cbor"]
    ),
    body=garbage,
)
def test_garbage(probe: Probe, method: str, resource: str, content_type: str, body: bytes) -> None:
    target = collection_path(resource) + ("" if method == "POST" else "/a") + "?fieldManager=fuzz"
    answer = probe.send(method, target, headers=[("Content-Type", content_type)], body=body)
    _check_write(probe, resource, answer, target)


delete_options = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["DeleteOptions", "Status", ""]),
        "apiVersion": st.sampled_from(["v1", "meta.svc/v1", "meta.k8s.io/v1", "apps/v1"]),
        "propagationPolicy": st.one_of(st.sampled_from(["Orphan", "Background", "Foreground", "x"]), json_values),
        "gracePeriodSeconds": st.one_of(st.integers(-5, 60), json_values),
        "orphanDependents": st.one_of(st.booleans(), json_values),
        "dryRun": st.one_of(st.just(["All"]), st.just(["x"]), json_values),
        "preconditions": st.one_of(
            st.fixed_dictionaries({}, optional={"uid": st.text(max_size=8), "resourceVersion": st.text(max_size=4)}),
            json_values,
        ),
    },
)


@fuzz_settings(250)
@given(
    data=st.data(),
    resource=st.sampled_from(KINDS),
    fmt=FORMATS,
    query=st.sampled_from(["", "?propagationPolicy=Foreground", "?gracePeriodSeconds=0", "?dryRun=All"]),
)
def test_delete(probe: Probe, data: st.DataObject, resource: str, fmt: str, query: str) -> None:
    """A delete with DeleteOptions in the body; an object a finalizer keeps must still be accepted back."""
    name = data.draw(fresh_names)
    created = probe.send_json("POST", collection_path(resource), data.draw(objects(resource, name=name)))
    body = encode_body(data.draw(st.one_of(delete_options, json_values)), fmt)
    headers = [("Content-Type", CONTENT_TYPES[fmt]), ("Accept", "application/json")]
    answer = probe.send("DELETE", f"{collection_path(resource)}/{name}{query}", headers=headers, body=body)
    if created.status == 201 and answer.status in (200, 202):
        assert_resubmittable(probe, collection_path(resource), {"metadata": {"name": name}})
