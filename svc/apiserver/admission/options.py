"""Admission flags: which plugins run (`--enable-admission-plugins`, `--disable-admission-plugins`, the
deprecated `--admission-control`) and their configuration file (`--admission-control-config-file`).

Names are checked against the registry here, so an unknown plugin stops start-up with upstream's
message before anything is opened.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from svc.apiserver.admission.config import AdmissionConfiguration, read_admission_configuration
from svc.apiserver.admission.registry import DEFAULT_OFF, ORDERED_NAMES


@dataclass
class AdmissionOptions:
    enable_plugins: list[str] = field(default_factory=list)
    disable_plugins: list[str] = field(default_factory=list)
    admission_control: list[str] | None = None
    configuration: AdmissionConfiguration = field(default_factory=AdmissionConfiguration)
    default_not_ready_toleration_seconds: int = 300
    default_unreachable_toleration_seconds: int = 300

    def enabled_plugins(self) -> list[str]:
        """The plugins to run, in upstream's fixed order whatever the order of the flags."""
        if self.admission_control is not None:
            chosen = set(self.admission_control)
        else:
            chosen = (set(ORDERED_NAMES) - DEFAULT_OFF - set(self.disable_plugins)) | set(self.enable_plugins)
        return [name for name in ORDERED_NAMES if name in chosen]


def _names(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--enable-admission-plugins",
        type=_names,
        action="append",
        help="admission plugins to enable in addition to the default ones (order irrelevant)",
    )
    add(
        "--disable-admission-plugins",
        type=_names,
        action="append",
        help="admission plugins to disable although they are on by default (order irrelevant)",
    )
    add(
        "--admission-control",
        type=_names,
        action="append",
        help="deprecated: the complete list of admission plugins to run (order irrelevant)",
    )
    add("--admission-control-config-file", help="AdmissionConfiguration file with per-plugin configuration")
    for condition in ("not-ready", "unreachable"):
        add(
            f"--default-{condition}-toleration-seconds",
            type=int,
            help=f"tolerationSeconds of the {condition} node taint added to pods without one (default 300)",
        )


def _flatten(groups: list[list[str]] | None) -> list[str] | None:
    return None if groups is None else [name for group in groups for name in group]


def from_args(args: argparse.Namespace) -> AdmissionOptions:
    """Raises ValueError with upstream's message(s) on unknown or contradictory plugin names."""
    enable = _flatten(args.enable_admission_plugins)
    disable = _flatten(args.disable_admission_plugins)
    legacy = _flatten(args.admission_control)
    known = set(ORDERED_NAMES)
    errors: list[str] = []
    if legacy is not None and (enable is not None or disable is not None):
        errors.append(
            "admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive"
        )
    for flag, names in (
        ("admission-control", legacy),
        ("enable-admission-plugins", enable),
        ("disable-admission-plugins", disable),
    ):
        errors.extend(f'{flag} plugin "{name}" is unknown' for name in names or () if name not in known)
    overlap = sorted(set(enable or ()) & set(disable or ()))
    if overlap:
        errors.append(f"[{' '.join(overlap)}] in enable-admission-plugins and disable-admission-plugins overlapped")
    if errors:
        raise ValueError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    options = AdmissionOptions(enable or [], disable or [], legacy)
    if args.default_not_ready_toleration_seconds is not None:
        options.default_not_ready_toleration_seconds = args.default_not_ready_toleration_seconds
    if args.default_unreachable_toleration_seconds is not None:
        options.default_unreachable_toleration_seconds = args.default_unreachable_toleration_seconds
    if args.admission_control_config_file:
        options.configuration = read_admission_configuration(Path(args.admission_control_config_file))
    return options
