"""Argument types for the programs' flags: Go's boolean and duration spellings, with the parse error
as argparse's own (`argument --x: invalid ...`), so every options module reads them the same way."""

from __future__ import annotations

import argparse

from svc.machinery.duration import parse_duration
from svc.machinery.gotext import parse_bool


def flag_bool(text: str) -> bool:
    try:
        return parse_bool(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def flag_duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
