"""The checks of the Pod Security Standards as they were at each version, with upstream's reasons and
details. Each check takes the pod's metadata and spec and returns None (allowed) or (reason, detail).

Every check has one or more variants, each applying from a minimum minor version (1.N) until the next
variant's: a namespace pinned to `v1.N` is judged as a server of that version would judge it, as
upstream's policy registry does; a check whose first variant is newer than the pinned version does not
run, and versions newer than this server's (and `latest`) mean this server's. The restricted level runs
the baseline checks that its active variants do not override, then its own; within a level the checks
run in the order of their identifiers, so messages come out in upstream's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

Obj = dict[str, Any]
Result = tuple[str, str] | None
Run = Callable[[Obj, Obj], Result]
# The minor version of this server: `latest`, and any newer pin, evaluate as this one.
LATEST_MINOR = 36

_ALLOWED_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
_SYSCTLS_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}
_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}
_RESTRICTED_VOLUME_SOURCES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
_APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _quoted(items: list[str]) -> str:
    return ", ".join(f'"{item}"' for item in items)


def _containers(spec: Obj) -> Iterator[Obj]:
    for field in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(field) or []


def _security(container: Obj) -> Obj:
    return container.get("securityContext") or {}


def _pod_security(spec: Obj) -> Obj:
    return spec.get("securityContext") or {}


def _named(names: list[str]) -> str:
    return f"{_plural('container', 'containers', len(names))} {_quoted(names)}"


def _windows(spec: Obj) -> bool:
    return (spec.get("os") or {}).get("name") == "windows"


def _user_namespaced(spec: Obj) -> bool:
    """A pod in its own user namespace (`hostUsers: false`), which some checks relax from 1.35."""
    return spec.get("hostUsers") is False


def _unless_windows(run: Run) -> Run:
    """The 1.25 variant of a restricted check: Windows pods are exempt from it."""

    def check(metadata: Obj, spec: Obj) -> Result:
        return None if _windows(spec) else run(metadata, spec)

    return check


def _unless_user_namespaced(run: Run) -> Run:
    """The 1.35 variant of a check relaxed for pods with `hostUsers: false`."""

    def check(metadata: Obj, spec: Obj) -> Result:
        return None if _user_namespaced(spec) else run(metadata, spec)

    return check


# -- baseline --------------------------------------------------------------------------------
def app_armor_profile(metadata: Obj, spec: Obj) -> Result:
    def unconfined(context: Obj) -> bool:
        return (context.get("appArmorProfile") or {}).get("type") == "Unconfined"

    setters = ["pod"] if unconfined(_pod_security(spec)) else []
    bad = [c.get("name", "") for c in _containers(spec) if unconfined(_security(c))]
    if bad:
        setters.append(_named(bad))
    for key, value in sorted((metadata.get("annotations") or {}).items()):
        if key.startswith(_APPARMOR_PREFIX) and value != "runtime/default" and not value.startswith("localhost/"):
            setters.append(f'{key}="{value}"')
    if setters:
        return _plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(setters)), ", ".join(setters)
    return None


def capabilities_baseline(metadata: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    added: set[str] = set()
    for container in _containers(spec):
        extra = [
            c
            for c in ((_security(container).get("capabilities") or {}).get("add") or [])
            if c not in _ALLOWED_CAPABILITIES
        ]
        if extra:
            bad.append(container.get("name", ""))
            added.update(extra)
    if bad:
        detail = f"{_named(bad)} must not include {_quoted(sorted(added))} in securityContext.capabilities.add"
        return "non-default capabilities", detail
    return None


def host_namespaces(metadata: Obj, spec: Obj) -> Result:
    found = [f"{field}=true" for field in ("hostNetwork", "hostPID", "hostIPC") if spec.get(field)]
    return ("host namespaces", ", ".join(found)) if found else None


def host_path_volumes(metadata: Obj, spec: Obj) -> Result:
    names = [v.get("name", "") for v in spec.get("volumes") or [] if v.get("hostPath") is not None]
    if names:
        return "hostPath volumes", f"{_plural('volume', 'volumes', len(names))} {_quoted(names)}"
    return None


def host_ports(metadata: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    ports: set[str] = set()
    for container in _containers(spec):
        used = [str(p["hostPort"]) for p in container.get("ports") or [] if p.get("hostPort")]
        if used:
            bad.append(container.get("name", ""))
            ports.update(used)
    if bad:
        uses = _plural("uses", "use", len(bad))
        detail = f"{_named(bad)} {uses} {_plural('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}"
        return "hostPort", detail
    return None


def privileged(metadata: Obj, spec: Obj) -> Result:
    bad = [c.get("name", "") for c in _containers(spec) if _security(c).get("privileged")]
    if bad:
        return "privileged", f"{_named(bad)} must not set securityContext.privileged=true"
    return None


def proc_mount(metadata: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    kinds: set[str] = set()
    for container in _containers(spec):
        mount = _security(container).get("procMount")
        if mount is None or mount == "Default":
            continue
        bad.append(container.get("name", ""))
        kinds.add(mount)
    if bad:
        return "procMount", f"{_named(bad)} must not set securityContext.procMount to {_quoted(sorted(kinds))}"
    return None


def host_probes_and_host_lifecycle(metadata: Obj, spec: Obj) -> Result:
    bad: set[str] = set()
    hosts: set[str] = set()
    for container in _containers(spec):
        handlers = [container.get(probe) or {} for probe in ("livenessProbe", "readinessProbe", "startupProbe")]
        lifecycle = container.get("lifecycle") or {}
        handlers += [lifecycle.get("postStart") or {}, lifecycle.get("preStop") or {}]
        found = [(handler.get(kind) or {}).get("host", "") for handler in handlers for kind in ("httpGet", "tcpSocket")]
        found = [host for host in found if host]
        if found:
            bad.add(container.get("name", ""))
            hosts.update(found)
    if bad:
        detail = (
            f"{_named(sorted(bad))} {_plural('uses', 'use', len(bad))} "
            f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_quoted(sorted(hosts))}"
        )
        return "probe or lifecycle host", detail
    return None


def _se_linux_options(allowed_types: frozenset[str], spec: Obj) -> Result:
    types: set[str] = set()
    flags = {"user": False, "role": False}

    def valid(options: Obj) -> bool:
        ok = True
        if options.get("type", "") not in allowed_types:
            ok = False
            types.add(options.get("type", ""))
        for field in ("user", "role"):
            if options.get(field):
                ok = False
                flags[field] = True
        return ok

    setters: list[str] = []
    pod_options = _pod_security(spec).get("seLinuxOptions")
    if pod_options is not None and not valid(pod_options):
        setters.append("pod")
    bad = [
        c.get("name", "")
        for c in _containers(spec)
        if _security(c).get("seLinuxOptions") is not None and not valid(_security(c)["seLinuxOptions"])
    ]
    if bad:
        setters.append(_named(bad))
    if not setters:
        return None
    data = [f"{_plural('type', 'types', len(types))} {_quoted(sorted(types))}"] if types else []
    data += [f"{field} may not be set" for field in ("user", "role") if flags[field]]
    detail = f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}"
    return "seLinuxOptions", detail


def se_linux_options_1_0(metadata: Obj, spec: Obj) -> Result:
    return _se_linux_options(_SELINUX_TYPES_1_0, spec)


def se_linux_options_1_31(metadata: Obj, spec: Obj) -> Result:
    return _se_linux_options(_SELINUX_TYPES_1_31, spec)


def _seccomp(valid: Callable[[str], bool], spec: Obj, require: bool) -> Result:
    setters: list[str] = []
    values: set[str] = set()
    pod_profile = _pod_security(spec).get("seccompProfile")
    pod_set = False
    if pod_profile is not None:
        if not valid(pod_profile.get("type", "")):
            setters.append("pod")
            values.add(pod_profile.get("type", ""))
        else:
            pod_set = True
    explicit: list[str] = []
    implicit: list[str] = []
    for container in _containers(spec):
        profile = _security(container).get("seccompProfile")
        if profile is not None:
            if not valid(profile.get("type", "")):
                explicit.append(container.get("name", ""))
                values.add(profile.get("type", ""))
        elif not pod_set:
            implicit.append(container.get("name", ""))
    if explicit:
        setters.append(_named(explicit))
    if setters:
        detail = (
            f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {_quoted(sorted(values))}"
        )
        return "seccompProfile", detail
    if require and implicit:
        detail = (
            f'pod or {_named(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'
        )
        return "seccompProfile", detail
    return None


def seccomp_profile_baseline_1_0(metadata: Obj, spec: Obj) -> Result:
    """Before 1.19 seccomp was chosen by the alpha annotations, so those are what is checked."""
    annotations = metadata.get("annotations") or {}
    keys = [_SECCOMP_POD_ANNOTATION] + [_SECCOMP_CONTAINER_PREFIX + c.get("name", "") for c in _containers(spec)]
    forbidden = {
        f'{key}="{annotations[key]}"'
        for key in keys
        if key in annotations
        and annotations[key] not in ("runtime/default", "docker/default")
        and not annotations[key].startswith("localhost/")
    }
    if forbidden:
        return "seccompProfile", f"forbidden {_plural('annotation', 'annotations', len(forbidden))} " + ", ".join(
            sorted(forbidden)
        )
    return None


def seccomp_profile_baseline_1_19(metadata: Obj, spec: Obj) -> Result:
    return _seccomp(lambda kind: kind != "Unconfined", spec, require=False)


def _sysctls(allowed: frozenset[str]) -> Run:
    def check(metadata: Obj, spec: Obj) -> Result:
        names = [s.get("name", "") for s in _pod_security(spec).get("sysctls") or [] if s.get("name") not in allowed]
        return ("forbidden sysctls", ", ".join(names)) if names else None

    return check


def windows_host_process(metadata: Obj, spec: Obj) -> Result:
    def host_process(context: Obj) -> bool:
        return bool((context.get("windowsOptions") or {}).get("hostProcess"))

    setters = ["pod"] if host_process(_pod_security(spec)) else []
    bad = [c.get("name", "") for c in _containers(spec) if host_process(_security(c))]
    if bad:
        setters.append(_named(bad))
    if setters:
        return "hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"
    return None


# -- restricted ------------------------------------------------------------------------------
def allow_privilege_escalation(metadata: Obj, spec: Obj) -> Result:
    bad = [c.get("name", "") for c in _containers(spec) if _security(c).get("allowPrivilegeEscalation") is not False]
    if bad:
        return (
            "allowPrivilegeEscalation != false",
            f"{_named(bad)} must set securityContext.allowPrivilegeEscalation=false",
        )
    return None


def capabilities_restricted(metadata: Obj, spec: Obj) -> Result:
    missing_drop: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for container in _containers(spec):
        capabilities = _security(container).get("capabilities")
        if capabilities is None:
            missing_drop.append(container.get("name", ""))
            continue
        if "ALL" not in (capabilities.get("drop") or []):
            missing_drop.append(container.get("name", ""))
        extra = [c for c in capabilities.get("add") or [] if c != "NET_BIND_SERVICE"]
        if extra:
            adding.append(container.get("name", ""))
            forbidden.update(extra)
    details = []
    if missing_drop:
        details.append(f'{_named(missing_drop)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(
            f"{_named(adding)} must not include {_quoted(sorted(forbidden))} in securityContext.capabilities.add"
        )
    return ("unrestricted capabilities", "; ".join(details)) if details else None


def restricted_volumes(metadata: Obj, spec: Obj) -> Result:
    bad: list[str] = []
    kinds: set[str] = set()
    for volume in spec.get("volumes") or []:
        sources = [key for key in volume if key != "name"]
        if any(source in _RESTRICTED_VOLUME_SOURCES for source in sources):
            continue
        bad.append(volume.get("name", ""))
        kinds.add(sources[0] if sources else "unknown")
    if bad:
        detail = (
            f"{_plural('volume', 'volumes', len(bad))} {_quoted(bad)} {_plural('uses', 'use', len(bad))} "
            f"{_plural('restricted volume type', 'restricted volume types', len(kinds))} {_quoted(sorted(kinds))}"
        )
        return "restricted volume types", detail
    return None


def run_as_non_root(metadata: Obj, spec: Obj) -> Result:
    setters: list[str] = []
    pod_value = _pod_security(spec).get("runAsNonRoot")
    if pod_value is False:
        setters.append("pod")
    explicit: list[str] = []
    implicit: list[str] = []
    for container in _containers(spec):
        value = _security(container).get("runAsNonRoot")
        if value is not None:
            if not value:
                explicit.append(container.get("name", ""))
        elif pod_value is not True:
            implicit.append(container.get("name", ""))
    if explicit:
        setters.append(_named(explicit))
    if setters:
        return "runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
    if implicit:
        return "runAsNonRoot != true", f"pod or {_named(implicit)} must set securityContext.runAsNonRoot=true"
    return None


def run_as_user(metadata: Obj, spec: Obj) -> Result:
    setters = ["pod"] if _pod_security(spec).get("runAsUser") == 0 else []
    bad = [c.get("name", "") for c in _containers(spec) if _security(c).get("runAsUser") == 0]
    if bad:
        setters.append(_named(bad))
    if setters:
        return "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0"
    return None


def seccomp_profile_restricted(metadata: Obj, spec: Obj) -> Result:
    return _seccomp(lambda kind: kind in ("RuntimeDefault", "Localhost"), spec, require=True)


@dataclass(frozen=True)
class Variant:
    """One implementation of a check, in force from 1.`minimum` until the check's next variant."""

    minimum: int
    run: Run
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    variants: tuple[Variant, ...]

    def at(self, minor: int) -> Variant | None:
        """The variant in force at 1.`minor`; None when the check is newer than that."""
        found = None
        for variant in self.variants:
            if variant.minimum <= minor:
                found = variant
        return found


def _one(run: Run, minimum: int = 0, overrides: tuple[str, ...] = ()) -> tuple[Variant, ...]:
    return (Variant(minimum, run, overrides),)


CHECKS: tuple[Check, ...] = (
    Check("appArmorProfile", "baseline", _one(app_armor_profile)),
    Check("capabilities_baseline", "baseline", _one(capabilities_baseline)),
    Check("hostNamespaces", "baseline", _one(host_namespaces)),
    Check("hostPathVolumes", "baseline", _one(host_path_volumes)),
    Check("hostPorts", "baseline", _one(host_ports)),
    Check("hostProbesAndHostLifecycle", "baseline", _one(host_probes_and_host_lifecycle, 34)),
    Check("privileged", "baseline", _one(privileged)),
    Check("procMount", "baseline", (Variant(0, proc_mount), Variant(35, _unless_user_namespaced(proc_mount)))),
    Check("seLinuxOptions", "baseline", (Variant(0, se_linux_options_1_0), Variant(31, se_linux_options_1_31))),
    Check(
        "seccompProfile_baseline",
        "baseline",
        (Variant(0, seccomp_profile_baseline_1_0), Variant(19, seccomp_profile_baseline_1_19)),
    ),
    Check(
        "sysctls",
        "baseline",
        (
            Variant(0, _sysctls(_SYSCTLS_1_0)),
            Variant(27, _sysctls(_SYSCTLS_1_27)),
            Variant(29, _sysctls(_SYSCTLS_1_29)),
            Variant(32, _sysctls(_SYSCTLS_1_32)),
        ),
    ),
    Check("windowsHostProcess", "baseline", _one(windows_host_process)),
    Check(
        "allowPrivilegeEscalation",
        "restricted",
        (Variant(8, allow_privilege_escalation), Variant(25, _unless_windows(allow_privilege_escalation))),
    ),
    Check(
        "capabilities_restricted",
        "restricted",
        (
            Variant(22, capabilities_restricted, ("capabilities_baseline",)),
            Variant(25, _unless_windows(capabilities_restricted), ("capabilities_baseline",)),
        ),
    ),
    Check("procMount_restricted", "restricted", _one(proc_mount, 35, ("procMount",))),
    Check("restrictedVolumes", "restricted", _one(restricted_volumes, 0, ("hostPathVolumes",))),
    Check(
        "runAsNonRoot",
        "restricted",
        (Variant(0, run_as_non_root), Variant(35, _unless_user_namespaced(run_as_non_root))),
    ),
    Check("runAsUser", "restricted", (Variant(23, run_as_user), Variant(35, _unless_user_namespaced(run_as_user)))),
    Check(
        "seccompProfile_restricted",
        "restricted",
        (
            Variant(19, seccomp_profile_restricted, ("seccompProfile_baseline",)),
            Variant(25, _unless_windows(seccomp_profile_restricted), ("seccompProfile_baseline",)),
        ),
    ),
)


def minor_of(version: str) -> int:
    """The minor version a `latest` or `v1.N` label evaluates as (newer than this server: this server's)."""
    if version == "latest":
        return LATEST_MINOR
    return min(int(version.removeprefix("v1.")), LATEST_MINOR)


@cache
def checks_at(level: str, minor: int) -> tuple[Run, ...]:
    """The checks of a level at 1.`minor`, in upstream's order (computed once per level and version)."""
    if level == "privileged":
        return ()
    active = [(check, variant) for check in CHECKS if (variant := check.at(minor)) is not None]
    baseline = sorted(((c, v) for c, v in active if c.level == "baseline"), key=lambda pair: pair[0].id)
    if level == "baseline":
        return tuple(v.run for _, v in baseline)
    restricted = sorted(((c, v) for c, v in active if c.level == "restricted"), key=lambda pair: pair[0].id)
    overridden = {override for _, v in restricted for override in v.overrides}
    kept = [v.run for c, v in baseline if c.id not in overridden]
    return tuple(kept + [v.run for _, v in restricted])


def violations(level: str, version: str, metadata: Obj, spec: Obj) -> list[str]:
    """`reason (detail)` of each failed check of a level at a version (`latest` or `v1.N`), in
    upstream's order; empty when the pod is allowed."""
    found = []
    for run in checks_at(level, minor_of(version)):
        result = run(metadata, spec)
        if result is not None:
            reason, detail = result
            found.append(f"{reason} ({detail})" if detail else reason)
    return found
