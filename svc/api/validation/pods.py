"""Pod specs and pod templates, as upstream's `ValidatePodSpec` and `ValidatePodTemplateSpec` check them
(release 1.36, default feature gates).

Per-field rules are tables; what spans fields is code: container names unique across regular, init
and ephemeral containers, and volume mounts naming declared volumes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.container_restart import init_container_errors, regular_container_errors
from svc.api.validation.containers import (
    CONTAINER,
    INIT_ONLY_WITH_ALWAYS,
    MAX_INT32,
    POD_SECURITY_CONTEXT,
    lifecycle_and_probes,
)
from svc.api.validation.engine import (
    At,
    Check,
    Format,
    KindRules,
    OneOf,
    Range,
    Required,
    Table,
    compile_table,
    inclusive_range,
    items,
    join,
    lookup,
    run,
    string_map,
    text,
)
from svc.api.validation.ephemeral_containers import ephemeral_only_errors
from svc.api.validation.known_valid import KnownValid
from svc.api.validation.pod_annotations import pod_annotation_errors
from svc.api.validation.pod_claims import pod_claim_errors
from svc.api.validation.pod_network import dns_config_errors, host_alias_errors, os_errors
from svc.api.validation.pod_resources import pod_resources_errors
from svc.api.validation.pod_runtime import (
    host_network_port_errors,
    overhead_errors,
    readiness_gate_errors,
    runtime_class_name_errors,
)
from svc.api.validation.ratchets import POD_RATCHETS
from svc.api.validation.scheduling import affinity_errors, topology_spread_errors
from svc.api.validation.security import host_users_errors, pod_security_errors, unmasked_proc_mount_errors
from svc.api.validation.tolerations import toleration_errors
from svc.api.validation.volume_files import (
    config_map_volume_errors,
    downward_api_volume_errors,
    projected_volume_errors,
    secret_volume_errors,
)
from svc.machinery.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_found,
    required,
)
from svc.machinery.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_annotations,
    validate_labels,
)

RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")

# Volume sources in the order upstream's `validateVolumeSource` tests them.
_VOLUME_SOURCES: Final = (
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "quobyte",
    "downwardAPI",
    "fc",
    "flexVolume",
    "configMap",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "storageos",
    "projected",
    "scaleIO",
    "csi",
    "ephemeral",
    "image",
)
_SOURCE_ORDER: Final = {key: index for index, key in enumerate(_VOLUME_SOURCES)}


_VALID_VOLUMES: Final = KnownValid()


def _volume(volume: Any, path: str) -> list[FieldError]:
    """One volume's source, then its name. A source found valid before is not checked again
    (`KnownValid`): it is remembered without the volume's name, which differs from pod to pod where
    admission adds the service account token volume."""
    if not isinstance(volume, Mapping):
        return []
    source = {member: value for member, value in volume.items() if member != "name"}
    errors = _VALID_VOLUMES.errors(source, lambda: _source_errors(volume, path))
    name = volume.get("name")
    if not name:
        errors.append(required(f"{path}.name"))
    elif isinstance(name, str):
        errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_label(name)]
    return errors


def _source_errors(volume: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    # The volume's own members, in the order of the sources list (not 30 lookups per volume).
    sources = sorted(
        (key for key, value in volume.items() if key in _SOURCE_ORDER and value is not None), key=_SOURCE_ORDER.get
    )
    errors += [forbidden(f"{path}.{key}", "may not specify more than 1 volume type") for key in sources[1:]]
    if not sources:
        errors.append(required(path, "must specify a volume type"))
    else:
        errors += run(_VOLUME_SOURCE_RULES.get(sources[0], ()), volume, path)
    return errors


_VOLUME_SOURCE_RULES: Final[dict[str, Table]] = {
    "hostPath": (Required("hostPath.path"),),
    "secret": (Check(secret_volume_errors),),
    "configMap": (Check(config_map_volume_errors),),
    "downwardAPI": (Check(downward_api_volume_errors),),
    "projected": (Check(projected_volume_errors),),
    "persistentVolumeClaim": (Required("persistentVolumeClaim.claimName"),),
    "nfs": (Required("nfs.server"), Required("nfs.path")),
}


def _volumes(spec: Any, base: str) -> tuple[set[str], list[FieldError]]:
    """Upstream's `ValidateVolumes`: errors, and the names of the volumes that passed (for mounts)."""
    names: set[str] = set()
    errors: list[FieldError] = []
    path = join(base, "volumes")
    for index, volume in enumerate(items(lookup(spec, "volumes"))):
        where = f"{path}[{index}]"
        found = _volume(volume, where)
        name = text(volume, "name")
        if name and name in names:
            found.append(duplicate(f"{where}.name", name))
        if found:
            errors += found
        elif name:
            names.add(name)
    return names, errors


def _volume_mounts(container: Any, base: str, volumes: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    mount_paths: set[str] = set()
    path = join(base, "volumeMounts")
    for index, mount in enumerate(items(lookup(container, "volumeMounts"))):
        if not isinstance(mount, Mapping):
            continue
        where = f"{path}[{index}]"
        name, mount_path = text(mount, "name"), text(mount, "mountPath")
        if not name:
            errors.append(required(f"{where}.name"))
        if name not in volumes:
            errors.append(not_found(f"{where}.name", name))
        if not mount_path:
            errors.append(required(f"{where}.mountPath"))
        if mount_path in mount_paths:
            errors.append(invalid(f"{where}.mountPath", mount_path, "must be unique"))
        mount_paths.add(mount_path)
    return errors


_RUN_CONTAINER: Final = compile_table(CONTAINER)


def _container_common(container: Any, path: str, volumes: set[str], spec: Any) -> list[FieldError]:
    errors = _RUN_CONTAINER(container, path) + _volume_mounts(container, path, volumes)
    return errors + unmasked_proc_mount_errors(container, path, host_users=lookup(spec, "hostUsers") is not False)


def _containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    path = join(base, "containers")
    containers = items(lookup(spec, "containers"))
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, container in enumerate(containers):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes, spec)
        name = text(container, "name")
        if name in seen:
            errors.append(duplicate(f"{where}.name", name))
        seen.add(name)
        errors += lifecycle_and_probes(
            container, where, lookup(spec, "terminationGracePeriodSeconds"), lookup(spec, "os")
        )
        errors += regular_container_errors(container, where)
    return errors


def _init_containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    path = join(base, "initContainers")
    errors: list[FieldError] = []
    names = {text(container, "name") for container in items(lookup(spec, "containers"))}
    for index, container in enumerate(items(lookup(spec, "initContainers"))):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes, spec)
        policy = lookup(container, "restartPolicy")
        errors += init_container_errors(container, where)
        name = text(container, "name")
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        elif name:
            names.add(name)
        if policy == "Always":
            errors += lifecycle_and_probes(
                container, where, lookup(spec, "terminationGracePeriodSeconds"), lookup(spec, "os")
            )
        else:
            errors += [
                forbidden(f"{where}.{key}", "may not be set for init containers without restartPolicy=Always")
                for key in INIT_ONLY_WITH_ALWAYS
                if lookup(container, key) is not None
            ]
    return errors


def _ephemeral_containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    ephemeral = items(lookup(spec, "ephemeralContainers"))
    if not ephemeral:
        return []
    path = join(base, "ephemeralContainers")
    others = {
        text(container, "name") for key in ("containers", "initContainers") for container in items(lookup(spec, key))
    }
    names = set(others)
    errors: list[FieldError] = []
    for index, container in enumerate(ephemeral):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes, spec)
        name = text(container, "name")
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        else:
            names.add(name)
        target = text(container, "targetContainerName")
        if target and target not in others:
            errors.append(not_found(f"{where}.targetContainerName", target))
        errors += ephemeral_only_errors(container, where)
    return errors


def _volumes_and_containers(spec: Any, base: str) -> list[FieldError]:
    volumes, errors = _volumes(spec, base)
    errors += _containers(spec, base, volumes)
    errors += _init_containers(spec, base, volumes)
    errors += _ephemeral_containers(spec, base, volumes)
    return errors


def _node_selector(spec: Any, base: str) -> list[FieldError]:
    return validate_labels(string_map(spec, "nodeSelector"), join(base, "nodeSelector"))


def _scheduling_gates(spec: Any, base: str) -> list[FieldError]:
    path = join(base, "schedulingGates")
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, gate in enumerate(items(lookup(spec, "schedulingGates"))):
        name = str(lookup(gate, "name") or "")
        errors += [invalid(f"{path}[{index}]", name, message) for message in is_qualified_name(name)]
        if name in seen:
            errors.append(duplicate(f"{path}[{index}]", name))
        seen.add(name)
    return errors


POD_SPEC: Table = (
    Required("terminationGracePeriodSeconds"),
    Check(_volumes_and_containers),
    Check(pod_claim_errors),
    Check(pod_resources_errors),
    OneOf("restartPolicy", RESTART_POLICIES),
    OneOf("dnsPolicy", DNS_POLICIES),
    Check(_node_selector),
    At("securityContext", POD_SECURITY_CONTEXT, optional=True),
    Check(pod_security_errors),
    Check(host_network_port_errors),
    Check(affinity_errors),
    Check(dns_config_errors),
    Check(readiness_gate_errors),
    Check(_scheduling_gates),
    Check(topology_spread_errors),
    Check(host_users_errors),
    Format("serviceAccountName", is_dns1123_subdomain),
    Format("nodeName", is_dns1123_subdomain),
    Range("activeDeadlineSeconds", 1, MAX_INT32, inclusive_range(1, MAX_INT32)),
    Format("hostname", is_dns1123_label),
    Format("subdomain", is_dns1123_label),
    Check(lambda spec, base: toleration_errors(lookup(spec, "tolerations"), join(base, "tolerations"))),
    Check(host_alias_errors),
    Format("priorityClassName", is_dns1123_subdomain),
    Check(runtime_class_name_errors),
    OneOf("preemptionPolicy", ("PreemptLowerPriority", "Never"), optional=True),
    Check(overhead_errors),
    Check(os_errors),
)


def _metadata_maps(node: Any, base: str) -> list[FieldError]:
    """A template's labels and annotations; upstream names their paths after the template, not `metadata`."""
    errors: list[FieldError] = []
    errors += validate_labels(string_map(node, "metadata.labels"), join(base, "labels"))
    errors += validate_annotations(string_map(node, "metadata.annotations"), join(base, "annotations"))
    return errors


def _no_ephemeral_containers(node: Any, base: str) -> list[FieldError]:
    if items(lookup(node, "spec.ephemeralContainers")):
        return [forbidden(join(base, "spec.ephemeralContainers"), "ephemeral containers not allowed in pod template")]
    return []


POD_TEMPLATE_SPEC: Table = (
    Check(_metadata_maps),
    Check(lambda node, base: pod_annotation_errors(node, join(base, "annotations"))),
    At("spec", POD_SPEC),
    Check(_no_ephemeral_containers),
)


def image_whitespace_errors(spec: Any, base: str) -> list[FieldError]:
    """Pods (not templates) may not have images with surrounding whitespace."""
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        for index, container in enumerate(items(lookup(spec, key))):
            image = lookup(container, "image")
            if isinstance(image, str) and image != image.strip():
                path = f"{join(base, key)}[{index}].image"
                errors.append(invalid(path, image, "must not have leading or trailing whitespace"))
    return errors


POD_TEMPLATE = KindRules(create=(At("template", POD_TEMPLATE_SPEC),), ratchets=POD_RATCHETS)
