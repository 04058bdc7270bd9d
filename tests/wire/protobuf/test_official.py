"""Our bytes against the official protobuf runtime reading upstream's own .proto files."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from svc.wire.protobuf import decode_envelope, decode_object, encode_list, encode_object, encode_watch_event

from .samples import CONFIG_MAP_LIST, DEPLOYMENT, FIELDS_V1_APPLY, NODE, POD, SECRET, SERVICE, read_back

CORE = "k8s.io.api.core.v1"
META = "k8s.io.apimachinery.pkg.apis.meta.v1"


def official_message(official, name: str, enveloped: bytes):
    return official(name).FromString(decode_envelope(enveloped)[2])


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (POD, f"{CORE}.Pod"),
        (DEPLOYMENT, "k8s.io.api.apps.v1.Deployment"),
        (SECRET, f"{CORE}.Secret"),
        (SERVICE, f"{CORE}.Service"),
        (NODE, f"{CORE}.Node"),
    ],
    ids=lambda value: value if isinstance(value, str) else value["kind"],
)
def test_official_runtime_keeps_every_field_we_write(official, obj, message):
    """Parsed by the official runtime with unknown fields dropped and written back, the bytes still
    decode to the input: nothing we wrote had a wrong number or wire type."""
    parsed = official_message(official, message, encode_object(obj))
    parsed.DiscardUnknownFields()
    rewritten = parsed.SerializeToString()
    decoded = decode_object(b"k8s\x00" + _unknown(official, obj["apiVersion"], obj["kind"], rewritten))
    assert decoded == read_back(obj)


def _unknown(official, api_version: str, kind: str, raw: bytes) -> bytes:
    unknown = official("k8s.io.apimachinery.pkg.runtime.Unknown")
    type_meta = official("k8s.io.apimachinery.pkg.runtime.TypeMeta")(apiVersion=api_version, kind=kind)
    return unknown(typeMeta=type_meta, raw=raw, contentEncoding="", contentType="").SerializeToString()


def test_pod_fields_as_the_official_runtime_reads_them(official):
    pod = official_message(official, f"{CORE}.Pod", encode_object(POD))
    assert pod.metadata.name == POD["metadata"]["name"]
    assert dict(pod.metadata.labels) == POD["metadata"]["labels"]
    assert (pod.metadata.creationTimestamp.seconds, pod.metadata.creationTimestamp.nanos) == (1704164645, 0)
    assert json.loads(pod.metadata.managedFields[0].fieldsV1.Raw) == FIELDS_V1_APPLY
    assert pod.metadata.ownerReferences[0].controller is True
    container = pod.spec.containers[0]
    assert container.ports[0].containerPort == 8080
    assert container.resources.requests["cpu"].string == "100m"
    port = container.readinessProbe.handler.httpGet.port
    assert (port.type, port.strVal) == (1, "http")
    projected = pod.spec.volumes[0].volumeSource.projected
    assert projected.sources[1].configMap.localObjectReference.name == "kube-root-ca.crt"
    assert projected.defaultMode == 420
    assert pod.spec.tolerations[0].tolerationSeconds == 300
    assert pod.spec.HasField("priority")
    assert pod.spec.priority == 0
    assert pod.status.containerStatuses[0].state.running.startedAt.seconds == 1704164647


def test_deployment_fields_as_the_official_runtime_reads_them(official):
    deployment = official_message(official, "k8s.io.api.apps.v1.Deployment", encode_object(DEPLOYMENT))
    rolling = deployment.spec.strategy.rollingUpdate
    assert (rolling.maxUnavailable.type, rolling.maxUnavailable.strVal) == (1, "25%")
    assert (rolling.maxSurge.type, rolling.maxSurge.intVal) == (0, 1)
    assert list(deployment.spec.selector.matchExpressions[0].values) == ["frontend", "edge"]
    assert deployment.spec.template.spec.containers[0].args == ["-g", "daemon off;"]


def test_config_map_list_as_the_official_runtime_reads_it(official):
    parsed = official_message(official, f"{CORE}.ConfigMapList", encode_list(CONFIG_MAP_LIST, "ConfigMap"))
    assert parsed.metadata.resourceVersion == "42"
    assert parsed.metadata.remainingItemCount == 7
    assert [item.metadata.name for item in parsed.items] == ["cm-0", "cm-1", "cm-2"]
    assert parsed.items[0].data["empty"] == ""
    assert [item.immutable for item in parsed.items] == [False, True, False]


def test_secret_bytes_are_raw_bytes_on_the_wire(official):
    secret = official_message(official, f"{CORE}.Secret", encode_object(SECRET))
    assert secret.data["tls.key"] == b"\x00\xff\x10\x80"
    assert secret.data["tls.crt"] == b""
    assert secret.stringData["note"] == "héllo"


def test_service_target_ports_are_int_or_string(official):
    service = official_message(official, f"{CORE}.Service", encode_object(SERVICE))
    first, second = (port.targetPort for port in service.spec.ports)
    assert (first.type, first.intVal, first.strVal) == (0, 8080, "")
    assert (second.type, second.intVal, second.strVal) == (1, 0, "admin")


def test_node_capacity_is_a_map_of_quantities(official):
    node = official_message(official, f"{CORE}.Node", encode_object(NODE))
    assert {name: q.string for name, q in node.status.capacity.items()} == NODE["status"]["capacity"]
    assert node.status.daemonEndpoints.kubeletEndpoint.Port == 10250


def test_watch_event_frame_as_the_official_runtime_reads_it(official):
    frame = encode_watch_event("MODIFIED", SERVICE)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    event = official(f"{META}.WatchEvent").FromString(frame[4:])
    assert event.type == "MODIFIED"
    assert event.object.raw == encode_object(SERVICE)
    unknown = official("k8s.io.apimachinery.pkg.runtime.Unknown").FromString(event.object.raw[4:])
    assert (unknown.typeMeta.apiVersion, unknown.typeMeta.kind) == ("v1", "Service")
    assert official(f"{CORE}.Service").FromString(unknown.raw).spec.ports[1].targetPort.strVal == "admin"


def test_envelope_is_byte_identical_to_the_official_unknown(official):
    raw = encode_object(SERVICE)
    assert raw == b"k8s\x00" + _unknown(official, "v1", "Service", decode_envelope(raw)[2])


def official_bytes(official, message: str, proto_shaped: dict) -> bytes:
    return json_format.ParseDict(proto_shaped, official(message)()).SerializeToString()


@pytest.mark.parametrize(
    ("kind", "message", "proto_shaped", "expected"),
    [
        (
            "Secret",
            f"{CORE}.Secret",
            {
                "metadata": {"name": "s", "creationTimestamp": {"seconds": "1704164645", "nanos": 7}},
                "data": {"k": "AP8="},
                "immutable": False,
            },
            {
                "metadata": {"name": "s", "creationTimestamp": "2024-01-02T03:04:05Z"},
                "data": {"k": "AP8="},
                "immutable": False,
            },
        ),
        (
            "Service",
            f"{CORE}.Service",
            {
                "spec": {
                    "ports": [
                        {"port": 80, "targetPort": {"type": "0", "intVal": 8080}},
                        {"port": 81, "targetPort": {"type": "1", "strVal": "web"}},
                    ]
                }
            },
            {
                "metadata": {},
                "spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 81, "targetPort": "web"}]},
                "status": {"loadBalancer": {}},  # non-pointer structs not on the wire: Go writes {}
            },
        ),
        (
            "Node",
            f"{CORE}.Node",
            {
                "status": {
                    "capacity": {"cpu": {"string": "4"}},
                    "conditions": [{"type": "Ready", "lastHeartbeatTime": {}}],
                }
            },
            {
                "metadata": {},
                "spec": {},
                "status": {
                    "capacity": {"cpu": "4"},
                    # status has no omitempty (""), zero times are null
                    "conditions": [
                        {"type": "Ready", "status": "", "lastHeartbeatTime": None, "lastTransitionTime": None}
                    ],
                    "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},  # a struct's zero has its scalars
                    "nodeInfo": {
                        "machineID": "",
                        "systemUUID": "",
                        "bootID": "",
                        "kernelVersion": "",
                        "osImage": "",
                        "containerRuntimeVersion": "",
                        "kubeletVersion": "",
                        "kubeProxyVersion": "",
                        "operatingSystem": "",
                        "architecture": "",
                    },
                },
            },
        ),
        (
            "Pod",
            f"{CORE}.Pod",
            {
                "metadata": {"managedFields": [{"manager": "m", "fieldsV1": {"Raw": "eyJmOmEiOnt9fQ=="}}]},
                "spec": {
                    "volumes": [{"name": "v", "volumeSource": {"emptyDir": {"sizeLimit": {"string": "1Gi"}}}}],
                    "securityContext": {"supplementalGroups": ["1", "-2"]},
                },
            },
            {
                "metadata": {"managedFields": [{"manager": "m", "fieldsV1": {"f:a": {}}}]},
                "spec": {
                    "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}],
                    "securityContext": {"supplementalGroups": [1, -2]},
                    "containers": None,  # a slice without omitempty: Go writes a nil one as null
                },
                "status": {},
            },
        ),
        (
            "Event",
            "k8s.io.api.events.v1.Event",
            {"eventTime": {"seconds": "1704164645", "nanos": 123456789}, "series": {"count": 2}},
            {
                "metadata": {},
                "eventTime": "2024-01-02T03:04:05.123456Z",
                "series": {"count": 2, "lastObservedTime": None},
                "regarding": {},
                "deprecatedSource": {},
                "deprecatedFirstTimestamp": None,
                "deprecatedLastTimestamp": None,
            },
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and "." not in value else None,
)
def test_official_bytes_decode_to_the_upstream_json(official, kind, message, proto_shaped, expected):
    api_version = "events.k8s.io/v1" if kind == "Event" else "v1"
    body = b"k8s\x00" + _unknown(official, api_version, kind, official_bytes(official, message, proto_shaped))
    assert decode_object(body) == {"kind": kind, "apiVersion": api_version, **expected}


# What Go's marshaller writes for fields left at their zero value: every non-pointer field.
META_ZEROS = {
    "name": "",
    "generateName": "",
    "namespace": "",
    "selfLink": "",
    "uid": "",
    "resourceVersion": "",
    "generation": "0",
    "creationTimestamp": {},
}
POD_SPEC_ZEROS = {
    "restartPolicy": "",
    "dnsPolicy": "",
    "serviceAccountName": "",
    "serviceAccount": "",
    "nodeName": "",
    "hostNetwork": False,
    "hostPID": False,
    "hostIPC": False,
    "hostname": "",
    "subdomain": "",
    "schedulerName": "",
    "priorityClassName": "",
}
CONTAINER_ZEROS = {
    "name": "",
    "image": "",
    "workingDir": "",
    "resources": {},
    "terminationMessagePath": "",
    "terminationMessagePolicy": "",
    "imagePullPolicy": "",
    "stdin": False,
    "stdinOnce": False,
    "tty": False,
}
PORT_ZEROS = {"name": "", "hostPort": 0, "containerPort": 0, "protocol": "", "hostIP": ""}
POD_STATUS_ZEROS = {
    "observedGeneration": "0",
    "phase": "",
    "message": "",
    "reason": "",
    "nominatedNodeName": "",
    "hostIP": "",
    "podIP": "",
    "resize": "",
}


@pytest.mark.parametrize(
    ("api_version", "kind", "message", "go_written", "upstream_json"),
    [
        (
            "apps/v1",
            "Deployment",
            "k8s.io.api.apps.v1.Deployment",
            {
                "metadata": {**META_ZEROS, "name": "web"},
                "spec": {
                    "replicas": 0,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {**META_ZEROS, "labels": {"app": "web"}},
                        "spec": {
                            **POD_SPEC_ZEROS,
                            "containers": [
                                {
                                    **CONTAINER_ZEROS,
                                    "name": "web",
                                    "image": "nginx",
                                    "ports": [{**PORT_ZEROS, "containerPort": 80, "protocol": "TCP"}],
                                }
                            ],
                        },
                    },
                    "strategy": {"type": ""},
                    "minReadySeconds": 0,
                    "paused": False,
                },
                "status": {
                    "observedGeneration": "0",
                    "replicas": 0,
                    "updatedReplicas": 0,
                    "readyReplicas": 0,
                    "availableReplicas": 0,
                    "unavailableReplicas": 0,
                },
            },
            {
                "metadata": {"name": "web"},
                "spec": {
                    "replicas": 0,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {
                            "containers": [
                                {
                                    "name": "web",
                                    "image": "nginx",
                                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                    "resources": {},
                                }
                            ]
                        },
                    },
                    "strategy": {},
                },
                "status": {},
            },
        ),
        (
            "v1",
            "Pod",
            f"{CORE}.Pod",
            {
                "metadata": {**META_ZEROS, "name": "p", "deletionTimestamp": {}},
                "spec": {
                    **POD_SPEC_ZEROS,
                    "containers": [{**CONTAINER_ZEROS, "name": "c", "image": "busybox", "ports": [PORT_ZEROS]}],
                },
                "status": {
                    **POD_STATUS_ZEROS,
                    "containerStatuses": [
                        {
                            "name": "c",
                            "state": {},
                            "lastState": {},
                            "ready": False,
                            "restartCount": 0,
                            "image": "",
                            "imageID": "",
                            "containerID": "",
                        }
                    ],
                },
            },
            {
                "metadata": {"name": "p", "deletionTimestamp": None},
                "spec": {
                    "containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 0}], "resources": {}}]
                },
                "status": {
                    "containerStatuses": [
                        {
                            "name": "c",
                            "state": {},
                            "lastState": {},
                            "ready": False,
                            "restartCount": 0,
                            "image": "",
                            "imageID": "",
                        }
                    ]
                },
            },
        ),
        (
            "v1",
            "PersistentVolumeClaim",
            f"{CORE}.PersistentVolumeClaim",
            {
                "metadata": {**META_ZEROS, "name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": {"string": "1Gi"}}},
                    "volumeName": "",
                    "storageClassName": "",
                },
                "status": {"phase": ""},
            },
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "storageClassName": "",
                },
                "status": {},
            },
        ),
        (
            "admissionregistration.k8s.io/v1",
            "MutatingWebhookConfiguration",
            "k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration",
            {
                "metadata": {**META_ZEROS, "name": "hooks"},
                "Webhooks": [{"name": "a.example.com", "clientConfig": {"url": "https://a", "caBundle": ""}}],
            },
            {
                "metadata": {"name": "hooks"},
                "webhooks": [
                    {"name": "a.example.com", "clientConfig": {"url": "https://a"}, "admissionReviewVersions": None}
                ],
            },
        ),
    ],
    ids=["Deployment", "Pod", "PersistentVolumeClaim", "MutatingWebhookConfiguration"],
)
def test_zero_values_go_writes_decode_to_the_upstream_json(
    official, api_version, kind, message, go_written, upstream_json
):
    """Go writes every non-pointer field; its JSON drops the `omitempty` ones when zero and the zero
    creationTimestamp (`omitzero`), and keeps pointers (replicas 0, storageClassName "", a zero
    deletionTimestamp as null), required fields (containerPort, ready) and struct values ({})."""
    body = b"k8s\x00" + _unknown(official, api_version, kind, official_bytes(official, message, go_written))
    assert decode_object(body) == {"kind": kind, "apiVersion": api_version, **upstream_json}
