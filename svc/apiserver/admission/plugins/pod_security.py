"""PodSecurity: the namespace's `pod-security.kubernetes.io/<mode>` labels (profile spelling) choose a
level (privileged, baseline, restricted) and `<mode>-version` per mode: `enforce` rejects violating
pods, `warn` returns a warning, `audit` adds the `<prefix>audit-violations` audit annotation; an
evaluated pod records `<prefix>enforce-policy`, an exempt one `<prefix>exempt` (namespace, user or
runtimeClass), invalid labels `<prefix>error`, as upstream. Workload resources with a pod template
(deployments, jobs, ...) get warn and audit, never enforce. A `<mode>-version: v1.N` label evaluates
the checks as they were at 1.N (`podsecurity/checks.py`). Defaults and exemptions (usernames,
runtime classes, namespaces) come from the PodSecurityConfiguration in the admission configuration file.

A namespace with invalid labels is refused (422); a namespace whose enforce level is tightened gets a
warning for each group of existing pods that would now be rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.podsecurity.checks import violations
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import field_errors, status
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
LEVELS = ("privileged", "baseline", "restricted")
MODES = ("enforce", "audit", "warn")
_VERSION = re.compile(r"v1\.(0|[1-9][0-9]*)")
CONFIG_KIND = "PodSecurityConfiguration"
CONFIG_GROUPS = ("pod-security.admission.config.k8s.io",)

# Resources whose objects carry a pod template, and where it sits.
_TEMPLATES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "podtemplates"): ("template",),
    ("", "replicationcontrollers"): ("spec", "template"),
    ("apps", "replicasets"): ("spec", "template"),
    ("apps", "deployments"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"),
    ("apps", "daemonsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: str

    def __str__(self) -> str:
        return f"{self.level}:{self.version}"


Policy = dict[str, LevelVersion]


def _parse_defaults(configuration: Any) -> tuple[Policy, Obj]:
    """The defaults and exemptions of a PodSecurityConfiguration (or upstream's: privileged, none)."""
    config = configuration or {}
    if config and config.get("kind") != CONFIG_KIND:
        raise ValueError(f"PodSecurity: expected kind {CONFIG_KIND}, got {config.get('kind')!r}")
    defaults = config.get("defaults") or {}
    policy: Policy = {}
    for mode in MODES:
        level = defaults.get(mode, "privileged")
        version = defaults.get(f"{mode}-version", "latest")
        if level not in LEVELS or (version != "latest" and not _VERSION.fullmatch(version)):
            raise ValueError(f"PodSecurity: invalid default {mode} policy {level}:{version}")
        policy[mode] = LevelVersion(level, version)
    return policy, config.get("exemptions") or {}


class PodSecurity:
    resources = frozenset({("", "pods"), ("", "namespaces"), *_TEMPLATES})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._defaults, exemptions = _parse_defaults(context.configuration)
        self._exempt_users = frozenset(exemptions.get("usernames") or ())
        self._exempt_namespaces = frozenset(exemptions.get("namespaces") or ())
        self._exempt_runtime_classes = frozenset(exemptions.get("runtimeClasses") or ())
        self._prefix = context.profile.label("pod-security.kubernetes.io/")

    def _policy(self, labels: dict[str, str]) -> tuple[Policy, list[field_errors.FieldError]]:
        """The policy of a namespace from its labels (upstream's PolicyToEvaluate); an invalid label
        is reported, and an invalid enforce level enforces restricted."""
        policy = dict(self._defaults)
        errors: list[field_errors.FieldError] = []
        for mode in MODES:
            level_key, version_key = self._prefix + mode, self._prefix + mode + "-version"
            level, version = policy[mode].level, policy[mode].version
            explicit = False
            if level_key in labels:
                if labels[level_key] in LEVELS:
                    level, explicit = labels[level_key], True
                else:
                    errors.append(
                        _label_error(level_key, labels[level_key], "must be one of privileged, baseline, restricted")
                    )
                    level = "restricted"
            if version_key in labels:
                value = labels[version_key]
                if value == "latest" or _VERSION.fullmatch(value):
                    version = value
                else:
                    errors.append(_label_error(version_key, value, 'must be "latest" or "v1.x"'))
                    version = "latest"
            elif explicit:
                version = "latest"
            policy[mode] = LevelVersion(level, version)
        return policy, errors

    async def validate(self, attributes: Attributes) -> None:
        resource = attributes.resource
        if targets(attributes, "", "namespaces"):
            await self._validate_namespace(attributes)
            return
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or not isinstance(attributes.object, dict):
            return
        if targets(attributes, "", "pods", ("", "ephemeralcontainers")):
            routine = attributes.operation is Operation.UPDATE and not attributes.subresource
            if routine and not _significant_update(attributes.object, attributes.old_object or {}):
                return
            await self._validate_pod(attributes, attributes.object, enforce=True)
            return
        path = _TEMPLATES.get((resource.upstream_group, resource.name))
        if path is not None and not attributes.subresource:
            template = attributes.object
            for key in path:
                template = (template or {}).get(key) or {}
            if attributes.operation is Operation.UPDATE and attributes.old_object is not None:
                old = attributes.old_object
                for key in path:
                    old = (old or {}).get(key) or {}
                if old == template:
                    return
            await self._validate_pod(attributes, template, enforce=False)

    def _exemption(self, attributes: Attributes, spec: Obj) -> str:
        if attributes.namespace in self._exempt_namespaces:
            return "namespace"
        if attributes.user.name in self._exempt_users:
            return "user"
        if spec.get("runtimeClassName") in self._exempt_runtime_classes:
            return "runtimeClass"
        return ""

    async def _validate_pod(self, attributes: Attributes, pod: Obj, *, enforce: bool) -> None:
        """Upstream's EvaluatePod: enforce (pods only), then audit, then warn (only when admitted), each
        level-version evaluated once."""
        spec = pod.get("spec") or {}
        annotations = attributes.annotations
        exemption = self._exemption(attributes, spec)
        if exemption:
            annotations[self._prefix + "exempt"] = exemption
            return
        namespace = await self._context.get("", "namespaces", "", attributes.namespace)
        labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
        policy, errors = self._policy(labels)
        if errors:
            annotations[self._prefix + "error"] = f"Failed to parse policy: {field_errors.aggregate_message(errors)}"
        metadata = pod.get("metadata") or {}
        results: dict[LevelVersion, list[str]] = {}

        def evaluate(level: LevelVersion) -> list[str]:
            if level not in results:
                results[level] = violations(level.level, level.version, metadata, spec)
            return results[level]

        rejection = None
        if enforce:
            annotations[self._prefix + "enforce-policy"] = str(policy["enforce"])
            if found := evaluate(policy["enforce"]):
                rejection = forbidden(attributes, f'violates PodSecurity "{policy["enforce"]}": {", ".join(found)}')
        if found := evaluate(policy["audit"]):
            annotations[self._prefix + "audit-violations"] = (
                f'would violate PodSecurity "{policy["audit"]}": {", ".join(found)}'
            )
        if rejection is not None:
            raise rejection
        if found := evaluate(policy["warn"]):
            attributes.warn(f'would violate PodSecurity "{policy["warn"]}": {", ".join(found)}')

    async def _validate_namespace(self, attributes: Attributes) -> None:
        if attributes.subresource or not isinstance(attributes.object, dict):
            return
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE):
            return
        labels = (attributes.object.get("metadata") or {}).get("labels") or {}
        policy, errors = self._policy(labels)
        old_policy: Policy | None = None
        if attributes.operation is Operation.UPDATE:
            old_labels = ((attributes.old_object or {}).get("metadata") or {}).get("labels") or {}
            old_policy, old_errors = self._policy(old_labels)
            if errors and [e.cause() for e in errors] == [e.cause() for e in old_errors]:
                errors = []
        if errors:
            raise status.invalid("Namespace", attributes.name, errors, field_errors.aggregate_message(errors))
        if old_policy is None:
            return
        new, old = policy["enforce"], old_policy["enforce"]
        if new == old or new.level == "privileged" or attributes.name in self._exempt_namespaces:
            return
        if new.version == old.version and LEVELS.index(new.level) <= LEVELS.index(old.level):
            return
        for warning in self._existing_pod_warnings(attributes.name, new):
            attributes.warn(warning)

    def _existing_pod_warnings(self, namespace: str, enforce: LevelVersion) -> list[str]:
        """Pods that the new enforce level would reject, grouped by identical reasons."""
        groups: dict[str, list[str]] = {}
        for pod in sorted(self._context.list("", "pods", namespace), key=lambda p: p["metadata"]["name"]):
            spec = pod.get("spec") or {}
            if spec.get("runtimeClassName") in self._exempt_runtime_classes:
                continue
            found = violations(enforce.level, enforce.version, pod.get("metadata") or {}, spec)
            if found:
                groups.setdefault(", ".join(found), []).append(pod["metadata"]["name"])
        if not groups:
            return []
        warnings = [f'existing pods in namespace "{namespace}" violate the new PodSecurity enforce level "{enforce}"']
        for reasons, names in groups.items():
            if len(names) == 1:
                warnings.append(f"{names[0]}: {reasons}")
            else:
                others = len(names) - 1
                warnings.append(f"{names[0]} (and {others} other {'pod' if others == 1 else 'pods'}): {reasons}")
        return warnings


def _label_error(key: str, value: str, detail: str) -> field_errors.FieldError:
    return field_errors.invalid(f"metadata.labels[{key}]", value, detail)


def _significant_update(pod: Obj, old: Obj) -> bool:
    """Upstream re-checks a pod update only when containers or images (or their seccomp
    annotations) change; metadata and status changes keep the pod as it was admitted."""
    spec, old_spec = pod.get("spec") or {}, old.get("spec") or {}
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    for field in ("containers", "initContainers", "ephemeralContainers"):
        containers, old_containers = spec.get(field) or [], old_spec.get(field) or []
        if len(containers) != len(old_containers):
            return True
        for container, old_container in zip(containers, old_containers, strict=True):
            if container.get("image") != old_container.get("image"):
                return True
            key = "container.seccomp.security.alpha.kubernetes.io/" + container.get("name", "")
            if annotations.get(key) != old_annotations.get(key):
                return True
    return False


def build(context: PluginContext) -> PodSecurity:
    return PodSecurity(context)
