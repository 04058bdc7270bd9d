"""Versioning flags (spec 2 part 9): `--emulated-version`, `--min-compatibility-version`,
`--emulation-forward-compatible` and `--runtime-config-emulation-forward-compatible`.

Values are `[component=]major.minor`, comma-separated, the component defaulting to the server's own
(the only one registered). Checked as upstream's component registry and effective version check
them: the emulated version lies between the binary version minus three minors and the binary
version; the minimum compatibility version (by default the emulated version minus one, not below the
floor) lies between that floor and the emulated version; the forward-compatibility switches need an
emulated version below the binary's. Errors carry upstream's texts.

What emulation applies: `/version` reports the emulated and minimum compatibility versions (the
binary's `major`/`minor` stay), and resources introduced after the emulated version are not served
(`svc.api.lifecycle`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass

from svc.api.lifecycle import withheld
from svc.api.resources import ResourceSet
from svc.apiserver.feature_gates import COMPONENT
from svc.machinery.flag_types import flag_bool

Version = tuple[int, int]
BINARY: Version = (1, 36)
FLOOR: Version = (BINARY[0], BINARY[1] - 3)
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def text(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


@dataclass
class VersioningOptions:
    emulated: Version = BINARY
    min_compatibility: Version = (BINARY[0], BINARY[1] - 1)
    emulation_forward_compatible: bool = False
    runtime_config_emulation_forward_compatible: bool = False

    @property
    def emulating(self) -> bool:
        return self.emulated != BINARY


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    choices = f"{COMPONENT}={text(FLOOR)}..{text(BINARY)}"
    add("--emulated-version", action="append", help=f"versions components emulate, [component=]major.minor ({choices})")
    add("--min-compatibility-version", action="append", help="minimum compatible versions, [component=]major.minor")
    for flag in ("--emulation-forward-compatible", "--runtime-config-emulation-forward-compatible"):
        add(flag, type=flag_bool, nargs="?", const=True, help="only with an emulated version below the binary's")


def _versions(values: list[str] | None) -> dict[str, Version]:
    """Upstream's `toVersionMap`: one version per component."""
    found: dict[str, Version] = {}
    for value in values or []:
        for item in value.split(","):
            component, sep, raw = item.partition("=")
            component, raw = (component.strip(), raw.strip()) if sep else (COMPONENT, item.strip())
            match = _VERSION.fullmatch(raw)
            if match is None:
                raise ValueError(f'could not parse "{raw}" as version')
            if match.group(3) not in (None, "0"):
                raise ValueError(f"patch version not allowed, got: {component}={raw.lstrip('v')}")
            version = (int(match.group(1)), int(match.group(2)))
            if component in found:
                raise ValueError(
                    f"duplicate version flag, {component}={text(found[component])} and {component}={text(version)}"
                )
            if component != COMPONENT:
                raise ValueError(f"component not registered: {component}")
            found[component] = version
    return found


def from_args(args: argparse.Namespace) -> VersioningOptions:
    options = VersioningOptions()
    emulated = _versions(args.emulated_version).get(COMPONENT)
    if emulated is not None:
        options.emulated = emulated
        options.min_compatibility = max((emulated[0], emulated[1] - 1), FLOOR)
    min_compatibility = _versions(args.min_compatibility_version).get(COMPONENT)
    if min_compatibility is not None:
        options.min_compatibility = min_compatibility
    if args.emulation_forward_compatible is not None:
        options.emulation_forward_compatible = args.emulation_forward_compatible
    if args.runtime_config_emulation_forward_compatible is not None:
        options.runtime_config_emulation_forward_compatible = args.runtime_config_emulation_forward_compatible
    _validate(options)
    return options


def _validate(options: VersioningOptions) -> None:
    errors = []
    if not FLOOR <= options.emulated <= BINARY:
        errors.append(f"emulation version {text(options.emulated)} is not between [{text(FLOOR)}, {text(BINARY)}]")
    if not FLOOR <= options.min_compatibility <= options.emulated:
        errors.append(
            f"minCompatibilityVersion version {text(options.min_compatibility)} is not between "
            f"[{text(FLOOR)}, {text(options.emulated)}]"
        )
    for name, value in (
        ("EmulationForwardCompatible", options.emulation_forward_compatible),
        ("RuntimeConfigEmulationForwardCompatible", options.runtime_config_emulation_forward_compatible),
    ):
        if value and not options.emulating:
            errors.append(
                f"ServerRunOptions.{name} cannot be set to true if the emulation version is the same as the binary "
                "version"
            )
    if errors:
        raise ValueError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")


def emulate(resources: ResourceSet, options: VersioningOptions, runtime_config: Mapping[str, bool]) -> None:
    """Withhold the resources introduced after the emulated version (ValueError: a `--runtime-config`
    entry that cannot be honoured)."""
    if options.emulating:
        resources.withhold(
            withheld(
                resources,
                options.emulated,
                runtime_config,
                forward_compatible=options.emulation_forward_compatible,
                runtime_config_forward_compatible=options.runtime_config_emulation_forward_compatible,
            )
        )


def version_fields(options: VersioningOptions) -> dict[str, str]:
    """The `/version` fields this configuration sets."""
    return {
        "major": str(BINARY[0]),
        "minor": str(BINARY[1]),
        "emulationMajor": str(options.emulated[0]),
        "emulationMinor": str(options.emulated[1]),
        "minCompatibilityMajor": str(options.min_compatibility[0]),
        "minCompatibilityMinor": str(options.min_compatibility[1]),
    }
