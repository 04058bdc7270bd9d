"""`--allow-privileged`: whether pods may run privileged containers (default false, as kube-apiserver's)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from svc.machinery.gotext import parse_bool


@dataclass(frozen=True)
class CapabilitiesOptions:
    allow_privileged: bool = False


def _bool(text: str) -> bool:
    try:
        return parse_bool(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-privileged", type=_bool, nargs="?", const=True, help="If true, allow privileged containers."
    )


def from_args(args: argparse.Namespace) -> CapabilitiesOptions:
    return CapabilitiesOptions(allow_privileged=bool(args.allow_privileged))
