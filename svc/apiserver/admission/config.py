"""`--admission-control-config-file`: an AdmissionConfiguration listing, per plugin, its configuration
inline (`configuration`) or in another file (`path`, relative to the configuration file's directory).

Each plugin receives its own section as a parsed document (or None) and decodes it itself, as
upstream's plugins decode the bytes they are handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

GROUPS = ("apiserver.config.k8s.io", "apiserver.k8s.io")


@dataclass(frozen=True)
class AdmissionConfiguration:
    plugins: dict[str, Any] = field(default_factory=dict)

    def for_plugin(self, name: str) -> Any:
        return self.plugins.get(name)


def _load(path: Path) -> Any:
    try:
        text = path.read_text()
    except OSError as error:
        raise ValueError(f'unable to read admission control configuration from "{path}" [{error}]') from None
    try:
        return yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as error:
        raise ValueError(f'unable to decode "{path}": {error}') from None


def read_admission_configuration(path: Path) -> AdmissionConfiguration:
    """Raises ValueError (the message start-up prints) on an unreadable or malformed file."""
    document = _load(path)
    if not isinstance(document, dict):
        raise ValueError(f'unable to decode "{path}": not an AdmissionConfiguration')
    group = str(document.get("apiVersion", "")).rpartition("/")[0]
    if document.get("kind") != "AdmissionConfiguration" or group not in GROUPS:
        raise ValueError(
            f'unable to decode "{path}": expected kind AdmissionConfiguration of apiserver.config.k8s.io/v1, '
            f"got {document.get('kind')!r} of {document.get('apiVersion')!r}"
        )
    plugins: dict[str, Any] = {}
    for index, entry in enumerate(document.get("plugins") or ()):
        if not isinstance(entry, dict) or not entry.get("name"):
            raise ValueError(f'unable to decode "{path}": plugins[{index}].name: Required value')
        name = entry["name"]
        if entry.get("path"):
            plugins[name] = _load(path.parent / entry["path"])
        else:
            plugins[name] = entry.get("configuration")
    return AdmissionConfiguration(plugins)
