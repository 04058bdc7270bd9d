"""Strategic-merge-patch directives in every place and of every type against a live server.

`$patch`, `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` are put into
a patch built from the stored object itself, so they land where the patch strategy reads them (a
merge-keyed list, a retainKeys struct, a primitive list), with right and wrong types. Never a 500 but
the ones upstream answers; a refused patch leaves the stored object as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.examples import fuzz_settings
from tests.fuzz.probe import Probe, assert_resubmittable
from tests.fuzz.strategies import BASES, collection_path, fresh_names, other_types
from tests.fuzz.wire import dumps

KINDS = ["pods", "deployments", "services", "statefulsets", "jobs", "configmaps", "clusterroles"]
patch_values = st.sampled_from(["delete", "replace", "merge", "x", "", 5, None, True, ["delete"], {"a": 1}]).map(
    copy.deepcopy
)


def _nodes(value: Any) -> list[Any]:
    """Every map and list in value, the root first."""
    found = [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        if isinstance(item, dict | list):
            found += _nodes(item)
    return found


@st.composite
def directive_patches(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """The object's own members (not the server's answer: examples must replay the same) with one to
    three directives put in maps and lists of them."""
    patch = {key: copy.deepcopy(value) for key, value in base.items() if key not in ("apiVersion", "kind")}
    patch["metadata"] = {"labels": {"app": "web"}, "finalizers": ["example.com/f"]}
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(_nodes(patch)))
        if isinstance(node, list):
            item = draw(st.sampled_from([{}, *(n for n in node if isinstance(n, dict))]))
            node.append({**copy.deepcopy(item), "$patch": draw(patch_values)})
            continue
        lists = [key for key, value in node.items() if isinstance(value, list)] or ["containers", "finalizers"]
        key = draw(st.sampled_from(lists))
        existing = node.get(key) if isinstance(node.get(key), list) else []
        directive = draw(
            st.sampled_from(["$patch", "$retainKeys", f"$setElementOrder/{key}", f"$deleteFromPrimitiveList/{key}"])
        )
        right = {
            "$patch": patch_values,
            "$retainKeys": st.just(sorted(node)),
            f"$setElementOrder/{key}": st.just(
                [
                    {k: v for k, v in item.items() if k == "name"} if isinstance(item, dict) else item
                    for item in existing
                ]
            ),
            f"$deleteFromPrimitiveList/{key}": st.just(existing[:1]),
        }[directive]
        node[directive] = draw(st.one_of(right, other_types))
    return patch


@fuzz_settings(80)
@given(data=st.data(), resource=st.sampled_from(KINDS), subresource=st.sampled_from(["", "", "/status"]))
def test_directives(probe: Probe, data: st.DataObject, resource: str, subresource: str) -> None:
    name = data.draw(fresh_names)
    collection = collection_path(resource)
    created = probe.send_json("POST", collection, {**BASES[resource], "metadata": {"name": name}})
    assert created.status == 201, created.body
    stored = created.json()
    path = f"{collection}/{name}"
    patch = data.draw(directive_patches(BASES[resource]))
    headers = [("Content-Type", "application/strategic-merge-patch+json"), ("Accept", "application/json")]
    answer = probe.send("PATCH", path + subresource, headers=headers, body=dumps(patch))
    if answer.status == 200:
        assert_resubmittable(probe, collection, answer.json())
    else:
        after = probe.send_json("GET", path).json()
        assert after == stored, f"refused with {answer.status} yet changed: {answer.body[:300]!r}"
