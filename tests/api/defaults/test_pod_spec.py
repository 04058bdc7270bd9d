"""Pod specs: the full set of defaults in templates and in Pods, and the Pod-only rules.

The two tables are upstream's own inventory of pod defaults, kubernetes/kubernetes
pkg/apis/core/v1/defaults_test.go `TestWorkloadDefaults` and `TestPodDefaults` (the version with
startup probes and gRPC probes), which default a spec with every nested struct present and list each
field defaulting filled in. Paths are written in JSON form here.
"""

from __future__ import annotations

from typing import Any

from tests.api.defaults.support import defaulted

_PROBE = {"httpGet": {}, "grpc": {}}
_CONTAINER = {
    "env": [{"valueFrom": {"fieldRef": {}}}],
    "lifecycle": {"postStart": {"httpGet": {}}, "preStop": {"httpGet": {}}},
    "livenessProbe": _PROBE,
    "readinessProbe": _PROBE,
    "startupProbe": _PROBE,
    "ports": [{}],
}
_VOLUMES = [
    {"azureDisk": {}},
    {"configMap": {}},
    {"downwardAPI": {"items": [{"fieldRef": {}}]}},
    {},
    {"ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
    {"hostPath": {}},
    {"iscsi": {}},
    {"projected": {"sources": [{"downwardAPI": {"items": [{"fieldRef": {}}]}}, {"serviceAccountToken": {}}]}},
    {"rbd": {}},
    {"scaleIO": {}},
    {"secret": {}},
]


def _spec() -> dict[str, Any]:
    return {
        "containers": [dict(_CONTAINER)],
        "initContainers": [dict(_CONTAINER)],
        "ephemeralContainers": [dict(_CONTAINER)],
        "volumes": _VOLUMES,
    }


def _container_defaults(prefix: str) -> dict[str, Any]:
    expected = {
        f"{prefix}.env.0.valueFrom.fieldRef.apiVersion": "v1",
        f"{prefix}.imagePullPolicy": "IfNotPresent",
        f"{prefix}.ports.0.protocol": "TCP",
        f"{prefix}.terminationMessagePath": "/dev/termination-log",
        f"{prefix}.terminationMessagePolicy": "File",
    }
    for hook in ("postStart", "preStop"):
        expected[f"{prefix}.lifecycle.{hook}.httpGet.path"] = "/"
        expected[f"{prefix}.lifecycle.{hook}.httpGet.scheme"] = "HTTP"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        expected[f"{prefix}.{probe}.failureThreshold"] = 3
        expected[f"{prefix}.{probe}.periodSeconds"] = 10
        expected[f"{prefix}.{probe}.successThreshold"] = 1
        expected[f"{prefix}.{probe}.timeoutSeconds"] = 1
        expected[f"{prefix}.{probe}.httpGet.path"] = "/"
        expected[f"{prefix}.{probe}.httpGet.scheme"] = "HTTP"
        expected[f"{prefix}.{probe}.grpc.service"] = ""
    return expected


_WORKLOAD_DEFAULTS: dict[str, Any] = {
    **_container_defaults("containers.0"),
    **_container_defaults("initContainers.0"),
    **_container_defaults("ephemeralContainers.0"),
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
    "volumes.0.azureDisk.cachingMode": "ReadWrite",
    "volumes.0.azureDisk.fsType": "ext4",
    "volumes.0.azureDisk.kind": "Shared",
    "volumes.0.azureDisk.readOnly": False,
    "volumes.1.configMap.defaultMode": 420,
    "volumes.2.downwardAPI.defaultMode": 420,
    "volumes.2.downwardAPI.items.0.fieldRef.apiVersion": "v1",
    "volumes.3.emptyDir": {},
    "volumes.4.ephemeral.volumeClaimTemplate.spec.volumeMode": "Filesystem",
    "volumes.5.hostPath.type": "",
    "volumes.6.iscsi.iscsiInterface": "default",
    "volumes.7.projected.defaultMode": 420,
    "volumes.7.projected.sources.0.downwardAPI.items.0.fieldRef.apiVersion": "v1",
    "volumes.7.projected.sources.1.serviceAccountToken.expirationSeconds": 3600,
    "volumes.8.rbd.keyring": "/etc/ceph/keyring",
    "volumes.8.rbd.pool": "rbd",
    "volumes.8.rbd.user": "admin",
    "volumes.9.scaleIO.fsType": "xfs",
    "volumes.9.scaleIO.storageMode": "ThinProvisioned",
    "volumes.10.secret.defaultMode": 420,
}


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    """Scalars and empty containers by dotted path."""
    if isinstance(value, dict) and value:
        items = value.items()
    elif isinstance(value, list) and value:
        items = ((str(index), item) for index, item in enumerate(value))
    else:
        return {prefix: value}
    found: dict[str, Any] = {}
    for key, item in items:
        found.update(_leaves(item, f"{prefix}.{key}" if prefix else key))
    return found


def _added(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    old = _leaves(before)
    return {path: value for path, value in _leaves(after).items() if old.get(path, ...) != value}


def test_template_defaults_are_upstreams_workload_defaults() -> None:
    template = {"spec": _spec()}
    controller = defaulted("", "ReplicationController", {"spec": {"template": template}})
    assert _added(template["spec"], controller["spec"]["template"]["spec"]) == _WORKLOAD_DEFAULTS


def test_pod_defaults_add_service_links_and_requests_to_the_workload_defaults() -> None:
    spec = _spec()
    spec["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    spec["initContainers"][0]["resources"] = {"limits": {"cpu": "1"}}
    pod = defaulted("", "Pod", {"spec": spec})
    assert _added(spec, pod["spec"]) == {
        **_WORKLOAD_DEFAULTS,
        "enableServiceLinks": True,
        "containers.0.resources.requests.cpu": "1",
        "initContainers.0.resources.requests.cpu": "1",
    }


def test_image_volume_pull_policy_follows_the_tag() -> None:
    """ImageVolume is on by default in 1.36; the policy follows the reference like a container's."""
    spec = {"containers": [], "volumes": [{"name": "a", "image": {"reference": "tool:latest"}}, {"image": {}}]}
    volumes = defaulted("", "Pod", {"spec": spec})["spec"]["volumes"]
    assert [volume["image"]["pullPolicy"] for volume in volumes] == ["Always", "IfNotPresent"]


def test_file_key_reference_is_required_unless_it_says_optional() -> None:
    env = [{"name": "A", "valueFrom": {"fileKeyRef": {"path": "p", "key": "k", "volumeName": "v"}}}]
    pod = defaulted("", "Pod", {"spec": {"containers": [{"name": "c", "env": env}]}})
    assert pod["spec"]["containers"][0]["env"][0]["valueFrom"]["fileKeyRef"]["optional"] is False


def test_template_containers_keep_limits_without_requests() -> None:
    """Requests taken from limits are a Pod default (so templates do not roll out on upgrade)."""
    container = {"name": "c", "image": "i:1", "resources": {"limits": {"cpu": "500m"}}}
    deployment = defaulted("apps", "Deployment", {"spec": {"template": {"spec": {"containers": [container]}}}})
    assert deployment["spec"]["template"]["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "500m"}}


def test_pod_requests_keep_what_the_client_asked_and_take_the_rest_from_limits() -> None:
    resources = {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "1"}}
    pod = defaulted("", "Pod", {"spec": {"containers": [{"name": "c", "resources": resources}]}})
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}


def test_ephemeral_containers_get_no_requests_from_limits() -> None:
    spec = {"containers": [], "ephemeralContainers": [{"name": "d", "resources": {"limits": {"cpu": "1"}}}]}
    pod = defaulted("", "Pod", {"spec": spec})
    assert "requests" not in pod["spec"]["ephemeralContainers"][0]["resources"]


def test_host_network_pods_expose_container_ports_on_the_host() -> None:
    """TestPodHostNetworkDefaults: Pods only; templates too only with a deprecated gate, off by default."""
    spec = {"hostNetwork": True, "containers": [{"name": "c", "ports": [{"containerPort": 12345}]}]}
    pod = defaulted("", "Pod", {"spec": spec})
    template = defaulted("", "PodTemplate", {"template": {"spec": spec}})
    assert pod["spec"]["containers"][0]["ports"][0]["hostPort"] == 12345
    assert "hostPort" not in template["template"]["spec"]["containers"][0]["ports"][0]


def test_zero_probe_settings_read_as_unset_and_others_are_kept() -> None:
    """Probe thresholds are value fields upstream, so an explicit 0 is indistinguishable from unset."""
    probe = {"exec": {"command": ["true"]}, "timeoutSeconds": 0, "periodSeconds": 7, "failureThreshold": 5}
    pod = defaulted("", "Pod", {"spec": {"containers": [{"name": "c", "livenessProbe": probe}]}})
    assert pod["spec"]["containers"][0]["livenessProbe"] == {
        "exec": {"command": ["true"]},
        "timeoutSeconds": 1,
        "periodSeconds": 7,
        "successThreshold": 1,
        "failureThreshold": 5,
    }


def test_a_volume_with_a_source_gets_no_empty_dir() -> None:
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": "c"}}
    pod = defaulted("", "Pod", {"spec": {"containers": [], "volumes": [volume]}})
    assert pod["spec"]["volumes"] == [volume]


def test_container_quantities_are_rounded_to_millis_and_canonical() -> None:
    resources = {"limits": {"cpu": "0.5", "memory": "1024Mi"}, "requests": {"cpu": "100u"}}
    template = {"spec": {"containers": [{"name": "c", "resources": resources}]}}
    deployment = defaulted("apps", "Deployment", {"spec": {"template": template}})
    assert deployment["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "1m"},
    }


def _pod_level(resources: dict[str, Any], containers: list[Any], init: list[Any] | None = None) -> dict[str, Any]:
    spec = {"resources": resources, "containers": containers, "initContainers": init or []}
    return defaulted("", "Pod", {"spec": spec})["spec"]["resources"]


def _asks(name: str, field: str, amounts: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"name": name, "resources": {field: amounts}, **extra}


def test_pod_level_requests_take_the_containers_aggregate_under_the_sidecar_rule() -> None:
    """Regular containers and sidecars add up (300m cpu, 150Mi memory); the plain init container needs
    its own 1 cpu plus the 50Mi sidecar started before it; the pod needs the larger of each."""
    containers = [_asks("a", "requests", {"cpu": "100m", "memory": "100Mi"}), _asks("b", "requests", {"cpu": "200m"})]
    init = [
        _asks("sidecar", "requests", {"memory": "50Mi"}, restartPolicy="Always"),
        _asks("setup", "requests", {"cpu": "1"}),
    ]
    resources = _pod_level({"limits": {"cpu": "2", "memory": "2Gi"}}, containers, init)
    assert resources["requests"] == {"cpu": "1", "memory": "150Mi"}


def test_pod_level_requests_fall_back_to_pod_level_limits() -> None:
    resources = _pod_level({"limits": {"cpu": "2", "memory": "2Gi"}}, [{"name": "a"}])
    assert resources["requests"] == {"cpu": "2", "memory": "2Gi"}


def test_pod_level_requests_alone_add_no_limits() -> None:
    """Defaulting pod-level cpu and memory limits from the containers' is not in release 1.36."""
    resources = _pod_level({"requests": {"cpu": "1"}}, [_asks("a", "limits", {"cpu": "2"})])
    assert resources == {"requests": {"cpu": "1"}}


def test_pod_level_hugepage_limits_take_the_containers_aggregate() -> None:
    containers = [_asks("a", "limits", {"hugepages-2Mi": "10Mi"}), _asks("b", "limits", {"hugepages-2Mi": "20Mi"})]
    resources = _pod_level({"requests": {"cpu": "1"}}, containers)
    assert resources == {"limits": {"hugepages-2Mi": "30Mi"}, "requests": {"cpu": "1", "hugepages-2Mi": "30Mi"}}
