"""When built-in API versions were introduced, and which of them a server emulating an earlier
release withholds (`--emulated-version`).

Upstream tags each versioned type with the release that introduced it and, when emulating, removes
the resources introduced after the emulated version, walking each group's versions from the lowest
priority up: with `--emulation-forward-compatible`, a resource whose lower-priority beta or GA
version is served keeps its newer versions; with `--runtime-config-emulation-forward-compatible`,
versions named in `--runtime-config` are served; otherwise naming in `--runtime-config` a version
all of whose resources are withheld stops the server. The table holds the served resources
introduced inside the emulation range (1.33 to 1.36); everything else predates it.
"""

from __future__ import annotations

from collections.abc import Mapping

from svc.api.resources import ResourceSet

Version = tuple[int, int]

INTRODUCED: dict[tuple[str, str], dict[str, Version]] = {
    ("admissionregistration.k8s.io", "v1"): {
        "mutatingadmissionpolicies": (1, 36),
        "mutatingadmissionpolicybindings": (1, 36),
    },
    ("admissionregistration.k8s.io", "v1beta1"): {
        "mutatingadmissionpolicies": (1, 34),
        "mutatingadmissionpolicybindings": (1, 34),
    },
    ("resource.k8s.io", "v1"): {
        "deviceclasses": (1, 34),
        "resourceclaims": (1, 34),
        "resourceclaimtemplates": (1, 34),
        "resourceslices": (1, 34),
    },
    ("storage.k8s.io", "v1"): {"volumeattributesclasses": (1, 34)},
}
"""(upstream group, version) -> resource -> the release that introduced it."""


def _text(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def withheld(
    resources: ResourceSet,
    emulated: Version,
    runtime_config: Mapping[str, bool],
    *,
    forward_compatible: bool = False,
    runtime_config_forward_compatible: bool = False,
) -> list[tuple[str, str, str]]:
    """The (served group, version, resource) a server emulating `emulated` does not serve; raises
    ValueError (upstream's text) for a version enabled in `--runtime-config` that would be empty."""
    withhold: list[tuple[str, str, str]] = []
    for group in resources.groups:
        enabled: set[str] = set()
        for version in reversed(group.versions):  # lowest priority first
            served = resources.in_group_version(group.name, version)
            if not served:
                continue
            upstream_group = served[0].upstream_group
            introduced = INTRODUCED.get((upstream_group, version), {})
            explicit = any(runtime_config.get(key) for key in {f"{upstream_group}/{version}", served[0].api_version})
            removed = []
            for resource in served:
                since = introduced.get(resource.name, (0, 0))
                keep = (
                    emulated >= since
                    or (forward_compatible and resource.name in enabled)
                    or (runtime_config_forward_compatible and explicit)
                )
                if not keep:
                    removed.append(resource.name)
                elif "alpha" not in version:
                    enabled.add(resource.name)
            if len(removed) == len(served) and explicit:
                gv = f"{upstream_group}/{version}" if upstream_group else version
                raise ValueError(
                    f"cannot enable version {gv} in runtime-config because all the resources have been introduced "
                    f"after the current version {_text(emulated)}. Consider setting "
                    "--runtime-config-emulation-forward-compatible=true"
                )
            withhold.extend((group.name, version, name) for name in removed)
    return withhold
