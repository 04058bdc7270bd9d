"""`x-kubernetes-list-type: set` and `map` lists in CRD rules: upstream's equality and `+`
(k8s.io/apiserver pkg/cel/common values: set lists compare as sets, map lists by their keys)."""

from __future__ import annotations

import pytest

from svc.machinery.cel.rules import compile_rule

SCHEMA = {
    "type": "object",
    "properties": {
        "tags": {
            "type": "array",
            "maxItems": 10,
            "x-kubernetes-list-type": "set",
            "items": {"type": "string", "maxLength": 10},
        },
        "plain": {"type": "array", "items": {"type": "string"}},
        "ports": {
            "type": "array",
            "maxItems": 10,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "protocol"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "protocol": {"type": "string"}, "port": {"type": "integer"}},
            },
        },
    },
}
NEW = {
    "tags": ["a", "b", "c"],
    "plain": ["a", "b"],
    "ports": [{"name": "web", "protocol": "TCP", "port": 80}, {"name": "web", "protocol": "UDP", "port": 81}],
}
OLD = {
    "tags": ["c", "a", "b"],
    "plain": ["b", "a"],
    "ports": [{"name": "web", "protocol": "UDP", "port": 81}, {"name": "web", "protocol": "TCP", "port": 80}],
}


def evaluate(rule: str) -> bool:
    return compile_rule(SCHEMA, rule).evaluate(NEW, OLD)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("self.tags == oldSelf.tags", True),
        ("self.tags == ['c', 'b', 'a']", True),
        ("self.tags == ['a', 'b']", False),
        ("self.tags == ['a', 'b', 'd']", False),
        # Only a set or map list on the left compares without order, as upstream's Equal does.
        ("['c', 'b', 'a'] == self.tags", False),
        ("self.plain == oldSelf.plain", False),
        ("self.ports == oldSelf.ports", True),
        ("self.ports == [dyn({'name': 'web', 'protocol': 'UDP', 'port': dyn(82)}), dyn(self.ports[0])]", False),
        # As upstream: each element of the right is looked up by key, so repeats go unnoticed.
        ("self.ports == [self.ports[0], self.ports[0]]", True),
    ],
)
def test_equality_follows_the_list_type(rule: str, expected: bool) -> None:
    assert evaluate(rule) is expected


@pytest.mark.parametrize(
    "rule",
    [
        "self.tags + ['d', 'a', 'd'] == ['a', 'b', 'c', 'd']",
        "(self.tags + ['d', 'a']).size() == 4",
        "(self.tags + ['d']) + ['a'] == ['d', 'c', 'b', 'a']",
        "(self.plain + ['a']).size() == 3",
        "(self.ports + [dyn({'name': 'web', 'protocol': 'TCP', 'port': dyn(8080)})])[0].port == 8080",
        "(self.ports + [dyn({'name': 'web', 'protocol': 'TCP', 'port': dyn(8080)})]).size() == 2",
        "(self.ports + [dyn({'name': 'dns', 'protocol': 'UDP', 'port': dyn(53)})])[2].port == 53",
    ],
)
def test_concatenation_follows_the_list_type(rule: str) -> None:
    assert evaluate(rule) is True


def test_set_and_map_lists_are_lists_to_every_other_function() -> None:
    rule = (
        "self.tags.size() == 3 && self.tags[0] == 'a' && 'b' in self.tags && self.tags.all(t, t != '')"
        " && self.ports.map(p, p.port) == [80, 81] && type(self.tags) == list && self.tags.isSorted()"
    )
    assert evaluate(rule) is True
