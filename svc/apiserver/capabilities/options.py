"""`--allow-privileged`: whether pods may run privileged containers (default false, as kube-apiserver's)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from svc.machinery.flag_types import flag_bool


@dataclass(frozen=True)
class CapabilitiesOptions:
    allow_privileged: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-privileged", type=flag_bool, nargs="?", const=True, help="If true, allow privileged containers."
    )


def from_args(args: argparse.Namespace) -> CapabilitiesOptions:
    return CapabilitiesOptions(allow_privileged=bool(args.allow_privileged))
