"""The bootstrap FlowSchemas and PriorityLevelConfigurations of kube-apiserver 1.36, as data.

Mandatory objects (`exempt`, `catch-all`) are always restored; suggested ones are created when missing
and kept as long as their `apf.kubernetes.io/autoupdate-spec` annotation says so (see `ensurer`).
Names of users, groups, namespaces and API groups are spelled per brand profile, as the RBAC
bootstrap policy spells them.
"""

from __future__ import annotations

from typing import Any

from svc.api.brand import Profile

Obj = dict[str, Any]
GROUP = "flowcontrol.apiserver.k8s.io"
AUTOUPDATE_ANNOTATION = "apf.kubernetes.io/autoupdate-spec"
EXEMPT = "exempt"
CATCH_ALL = "catch-all"
MANDATORY_NAMES = frozenset({EXEMPT, CATCH_ALL})

_ALL_RESOURCES = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
_ALL_NON_RESOURCES = {"verbs": ["*"], "nonResourceURLs": ["*"]}
_GET_CREATE_UPDATE = ["get", "create", "update"]

# name: (nominalConcurrencyShares, lendablePercent, queues, handSize, queueLengthLimit); None = Reject
_LEVELS: dict[str, tuple[int, int, tuple[int, int, int] | None]] = {
    CATCH_ALL: (5, 0, None),
    "system": (30, 33, (64, 6, 50)),
    "node-high": (40, 25, (64, 6, 50)),
    "leader-election": (10, 0, (16, 4, 50)),
    "workload-high": (40, 50, (128, 6, 50)),
    "workload-low": (100, 90, (128, 6, 50)),
    "global-default": (20, 50, (128, 6, 50)),
}


def annotation(profile: Profile) -> str:
    return profile.label(AUTOUPDATE_ANNOTATION)


def _component(name: str, profile: Profile) -> str:
    """`system:kube-scheduler` in the profile's spelling (the prefix of its API server's name)."""
    return name.replace("kube-", profile.apiserver_name.removesuffix("apiserver"), 1)


def _metadata(name: str, profile: Profile) -> Obj:
    return {"name": name, "annotations": {annotation(profile): "true"}}


def _level(name: str, profile: Profile) -> Obj:
    group = profile.group(GROUP)
    obj: Obj = {"apiVersion": f"{group}/v1", "kind": "PriorityLevelConfiguration", "metadata": _metadata(name, profile)}
    if name == EXEMPT:
        obj["spec"] = {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}
        return obj
    shares, lendable, queuing = _LEVELS[name]
    if queuing is None:
        response: Obj = {"type": "Reject"}
    else:
        queues, hand, length = queuing
        response = {"type": "Queue", "queuing": {"queues": queues, "handSize": hand, "queueLengthLimit": length}}
    obj["spec"] = {
        "type": "Limited",
        "limited": {"nominalConcurrencyShares": shares, "lendablePercent": lendable, "limitResponse": response},
    }
    return obj


def _groups(*names: str) -> list[Obj]:
    return [{"kind": "Group", "group": {"name": name}} for name in names]


def _users(*names: str) -> list[Obj]:
    return [{"kind": "User", "user": {"name": name}} for name in names]


def _service_accounts(namespace: str, *names: str) -> list[Obj]:
    return [{"kind": "ServiceAccount", "serviceAccount": {"namespace": namespace, "name": name}} for name in names]


def _schema(name: str, level: str, precedence: int, method: str, profile: Profile, *rules: Obj) -> Obj:
    group = profile.group(GROUP)
    spec: Obj = {"priorityLevelConfiguration": {"name": level}, "matchingPrecedence": precedence}
    if method:
        spec["distinguisherMethod"] = {"type": method}
    spec["rules"] = list(rules)
    return {"apiVersion": f"{group}/v1", "kind": "FlowSchema", "metadata": _metadata(name, profile), "spec": spec}


def _everything(subjects: list[Obj]) -> Obj:
    return {
        "subjects": subjects,
        "resourceRules": [dict(_ALL_RESOURCES)],
        "nonResourceRules": [dict(_ALL_NON_RESOURCES)],
    }


def _rule(verbs: list[str], groups: list[str], resources: list[str], namespaces: list[str], cluster: bool) -> Obj:
    rule: Obj = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if cluster:
        rule["clusterScope"] = True
    rule["namespaces"] = namespaces
    return rule


def priority_levels(profile: Profile) -> list[Obj]:
    """Mandatory first, then the suggested ones, in upstream's order."""
    return [_level(name, profile) for name in (EXEMPT, *_LEVELS)]


def flow_schemas(profile: Profile) -> list[Obj]:
    system = profile.system_namespace
    manager, scheduler = (
        _component("system:kube-controller-manager", profile),
        _component("system:kube-scheduler", profile),
    )
    coordination = profile.group("coordination.k8s.io")
    everyone = ("system:unauthenticated", "system:authenticated")
    leases = _rule(_GET_CREATE_UPDATE, [coordination], ["leases"], ["*"], False)
    return [
        _schema(EXEMPT, EXEMPT, 1, "", profile, _everything(_groups("system:masters"))),
        _schema(
            "probes",
            EXEMPT,
            2,
            "",
            profile,
            {
                "subjects": _groups(*everyone),
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}],
            },
        ),
        _schema(
            "system-leader-election",
            "leader-election",
            100,
            "ByUser",
            profile,
            {
                "subjects": [*_users(manager, scheduler), *_service_accounts(system, "*")],
                "resourceRules": [leases],
            },
        ),
        _schema(
            "endpoint-controller",
            "workload-high",
            150,
            "ByUser",
            profile,
            {
                "subjects": [
                    *_users(manager),
                    *_service_accounts(system, "endpoint-controller", "endpointslicemirroring-controller"),
                ],
                "resourceRules": [_rule(_GET_CREATE_UPDATE, [""], ["endpoints"], ["*"], False)],
            },
        ),
        _schema(
            "workload-leader-election",
            "leader-election",
            200,
            "ByUser",
            profile,
            {
                "subjects": _service_accounts(system, "*"),
                "resourceRules": [_rule(_GET_CREATE_UPDATE, [""], ["endpoints", "configmaps"], ["*"], False), leases],
            },
        ),
        _schema(
            "system-node-high",
            "node-high",
            400,
            "ByUser",
            profile,
            {
                "subjects": _groups("system:nodes"),
                "resourceRules": [
                    _rule(["*"], [""], ["nodes", "nodes/status"], ["*"], True),
                    _rule(["*"], [coordination], ["leases"], ["*"], False),
                ],
            },
        ),
        _schema("system-nodes", "system", 500, "ByUser", profile, _everything(_groups("system:nodes"))),
        _schema(
            _component("kube-controller-manager", profile),
            "workload-high",
            800,
            "ByNamespace",
            profile,
            _everything(_users(manager)),
        ),
        _schema(
            _component("kube-scheduler", profile),
            "workload-high",
            800,
            "ByNamespace",
            profile,
            _everything(_users(scheduler)),
        ),
        _schema(
            _component("kube-system-service-accounts", profile),
            "workload-high",
            900,
            "ByNamespace",
            profile,
            _everything(_service_accounts(system, "*")),
        ),
        _schema(
            "service-accounts", "workload-low", 9000, "ByUser", profile, _everything(_groups("system:serviceaccounts"))
        ),
        _schema("global-default", "global-default", 9900, "ByUser", profile, _everything(_groups(*everyone))),
        _schema(CATCH_ALL, CATCH_ALL, 10000, "ByUser", profile, _everything(_groups(*everyone))),
    ]
