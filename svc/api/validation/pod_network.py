"""A pod spec's name resolution and OS rules, as upstream's `validatePodDNSConfig`, `ValidateHostAliases`
and `validateOS` check them.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.addresses import ip_errors
from svc.api.validation.engine import items, join, lookup, text
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required
from svc.machinery.validation import is_dns1123_subdomain, is_dns1123_subdomain_with_underscore

MAX_NAMESERVERS: Final = 3
MAX_SEARCH_PATHS: Final = 32
MAX_SEARCH_CHARS: Final = 2048
OS_NAMES: Final = ("linux", "windows")
_WINDOWS_POD_FIELDS: Final = (
    "securityContext.appArmorProfile",
    "securityContext.seLinuxOptions",
    "hostUsers",
    "hostPID",
    "hostIPC",
    "securityContext.seccompProfile",
    "securityContext.fsGroup",
    "securityContext.fsGroupChangePolicy",
    "securityContext.sysctls",
    "shareProcessNamespace",
    "securityContext.runAsUser",
    "securityContext.runAsGroup",
    "securityContext.supplementalGroups",
    "securityContext.supplementalGroupsPolicy",
    "securityContext.seLinuxChangePolicy",
)
# Plain booleans and a list upstream tests by value or length rather than for nil.
_SET_WHEN_TRUE: Final = frozenset({"hostPID", "hostIPC"})
_SET_WHEN_NONEMPTY: Final = frozenset({"securityContext.sysctls"})
_WINDOWS_CONTAINER_FIELDS: Final = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "capabilities",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "procMount",
    "runAsUser",
    "runAsGroup",
)
_CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")


def _ip(value: Any, path: str) -> list[FieldError]:
    address = value if isinstance(value, str) else ""
    return [invalid(path, address, message) for message in ip_errors(address)]


def dns_config_errors(spec: Any, base: str) -> list[FieldError]:
    """`spec.dnsConfig`: required with policy None; nameservers, search domains and options within libc's limits."""
    config = lookup(spec, "dnsConfig")
    if config is None and lookup(spec, "dnsPolicy") != "None":
        return []
    path = join(base, "dnsConfig")
    nameservers = items(lookup(config, "nameservers"))
    if lookup(spec, "dnsPolicy") == "None":
        if type(config) is not dict:
            return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not nameservers:
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [required(f"{path}.nameservers", detail)]
    if type(config) is not dict:
        return []
    errors: list[FieldError] = []
    if len(nameservers) > MAX_NAMESERVERS:
        detail = f"must not have more than {MAX_NAMESERVERS} nameservers"
        errors.append(invalid(f"{path}.nameservers", nameservers, detail))
    for index, nameserver in enumerate(nameservers):
        errors += _ip(nameserver, f"{path}.nameservers[{index}]")
    searches = [search for search in items(config.get("searches")) if isinstance(search, str)]
    if len(searches) > MAX_SEARCH_PATHS:
        detail = f"must not have more than {MAX_SEARCH_PATHS} search paths"
        errors.append(invalid(f"{path}.searches", searches, detail))
    if len(" ".join(searches)) > MAX_SEARCH_CHARS:
        detail = f"must not have more than {MAX_SEARCH_CHARS} characters (including spaces) in the search list"
        errors.append(invalid(f"{path}.searches", searches, detail))
    for index, search in enumerate(searches):
        if search != ".":
            search = search.removesuffix(".")
            where = f"{path}.searches[{index}]"
            errors += [invalid(where, search, message) for message in is_dns1123_subdomain_with_underscore(search)]
    for index, option in enumerate(items(config.get("options"))):
        if not text(option, "name"):
            errors.append(required(f"{path}.options[{index}]", "must not be empty"))
    return errors


def host_alias_errors(spec: Any, base: str) -> list[FieldError]:
    """`spec.hostAliases`: each an IP address and DNS subdomain host names."""
    aliases = items(lookup(spec, "hostAliases"))
    if not aliases:
        return []
    path = join(base, "hostAliases")
    errors: list[FieldError] = []
    for index, alias in enumerate(aliases):
        where = f"{path}[{index}]"
        errors += _ip(lookup(alias, "ip"), f"{where}.ip")
        for number, hostname in enumerate(items(lookup(alias, "hostnames"))):
            name = hostname if isinstance(hostname, str) else ""
            errors += [invalid(f"{where}.hostnames[{number}]", name, message) for message in is_dns1123_subdomain(name)]
    return errors


def _windows_only(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateWindows`: Linux-only settings a Windows pod may not carry."""
    errors = [
        forbidden(join(base, key), "cannot be set for a windows pod")
        for key in _WINDOWS_POD_FIELDS
        if _is_set(key, lookup(spec, key))
    ]
    for containers in _CONTAINER_LISTS:
        for index, container in enumerate(items(lookup(spec, containers))):
            context = lookup(container, "securityContext")
            where = f"{join(base, containers)}[{index}].securityContext"
            errors += [
                forbidden(f"{where}.{key}", "cannot be set for a windows pod")
                for key in _WINDOWS_CONTAINER_FIELDS
                if lookup(context, key) is not None
            ]
    return errors


def _is_set(key: str, value: Any) -> bool:
    """How upstream's internal type sees a field: a non-nil pointer, except for the host flags and sysctls."""
    if key in _SET_WHEN_TRUE:
        return value is True
    if key in _SET_WHEN_NONEMPTY:
        return bool(value)
    return value is not None


def _linux_only(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateLinux`: Windows options may not be set on a Linux pod."""
    detail = "windows options cannot be set for a linux pod"
    errors = []
    if lookup(spec, "securityContext.windowsOptions") is not None:
        errors.append(forbidden(join(base, "securityContext.windowsOptions"), detail))
    for containers in _CONTAINER_LISTS:
        for index, container in enumerate(items(lookup(spec, containers))):
            if lookup(container, "securityContext.windowsOptions") is not None:
                errors.append(forbidden(f"{join(base, containers)}[{index}].securityContext.windowsOptions", detail))
    return errors


def os_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateOS`, then the settings the chosen OS cannot honour."""
    pod_os = lookup(spec, "os")
    if type(pod_os) is not dict:
        return []
    path = join(base, "os")
    name = text(pod_os, "name")
    if not name:
        return [required(f"{path}.name", "cannot be empty")]
    if name not in OS_NAMES:
        return [not_supported(path, name, OS_NAMES)]
    return _linux_only(spec, base) if name == "linux" else _windows_only(spec, base)
