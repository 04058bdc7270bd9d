"""The svcrc preferences file (the upstream kuberc format): default flag values per command.

Its path is `--svcrc`, else `$SVCRC`, else `~/.svc/svcrc`; `SVCRC=off` turns it off. Only the
`defaults` section is read: for each `command`, `options` give flag values used when the command
line does not set them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from svc.cli.errors import CliError

ENV = "SVCRC"


def load_defaults(path_flag: str, command: str) -> dict[str, str]:
    env = os.environ.get(ENV, "")
    if env == "off" and not path_flag:
        return {}
    path = Path(path_flag or env or Path.home() / ".svc" / "svcrc")
    if not path.exists():
        if path_flag:
            raise CliError(f"stat {path}: no such file or directory")
        return {}
    try:
        document: Any = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise CliError(f"error loading preferences file {path}: {error}") from None
    defaults: dict[str, str] = {}
    for entry in document.get("defaults") or []:
        if isinstance(entry, dict) and entry.get("command") == command:
            for option in entry.get("options") or []:
                defaults[str(option.get("name", ""))] = str(option.get("default", ""))
    return defaults
