"""The `--fault-config` flag: a YAML or JSON file of fault rules, read and checked at start-up so a
bad file stops the server with exit code 2."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from svc.apiserver.faults.rules import FaultSet, parse_fault_set


@dataclass
class FaultOptions:
    config_file: str = ""
    faults: FaultSet = field(default_factory=FaultSet)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fault-config",
        help="YAML or JSON file of fault-injection rules (errors, delays, dropped watches) for tests",
    )


def from_args(args: argparse.Namespace) -> FaultOptions:
    path = args.fault_config
    if not path:
        return FaultOptions()
    return FaultOptions(path, read_fault_config(Path(path)))


def read_fault_config(path: Path) -> FaultSet:
    try:
        text = path.read_text()
    except OSError as error:
        raise ValueError(f"--fault-config: {error.strerror}: {path}") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ValueError(f"--fault-config: {path}: {error}") from None
    try:
        return parse_fault_set(document)
    except ValueError as error:
        raise ValueError(f"--fault-config: {path}: {error}") from None
