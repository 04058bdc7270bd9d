"""`svcctl create quota NAME [--hard=resource=quantity,...] [--scopes=Scope,...]` (spec 3 §1.2)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from svc.api.brand import SVC
from svc.cli.errors import CliError
from svc.cli.flags import add_bool, add_optional_value
from svc.cli.output import Output
from svc.machinery.quantity import QuantityError, parse_quantity

# Upstream's ResourceQuota scopes (release 1.36).
SCOPES = (
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
    "VolumeAttributesClass",
)
DRY_RUN_VALUES = ("none", "server", "client")
VALIDATE_VALUES = {"strict": "Strict", "true": "Strict", "warn": "Warn", "ignore": "Ignore", "false": "Ignore"}
BARE_DRY_RUN = "unchanged"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("name", nargs="*", help="name of the quota")
    add("--hard", default="", help="comma-delimited resource=quantity pairs that define a hard limit")
    add("--scopes", default="", help="comma-delimited quota scopes that must all match each tracked object")
    add_optional_value(
        parser,
        "--dry-run",
        BARE_DRY_RUN,
        default="none",
        help='"none", "server" (send without storing) or "client" (only print the object)',
    )
    add("--field-manager", default=f"{SVC.cli_name}-create", help="name of the manager tracking field ownership")
    add_optional_value(
        parser,
        "--validate",
        "strict",
        default="strict",
        help='"strict" (or true), "warn", or "ignore" (or false): field validation of the request',
    )
    add_bool(parser, "--save-config", default=False, help="save the configuration in the last-applied annotation")
    add(
        "-o",
        "--output",
        default="",
        help="json, yaml, kyaml, name, go-template, go-template-file, template, "
        "templatefile, jsonpath, jsonpath-as-json, jsonpath-file",
    )
    add("--template", default="", help="template string or path to a template file for template outputs")
    add_bool(
        parser,
        "--allow-missing-template-keys",
        default=True,
        help="ignore missing keys in templates (template and jsonpath outputs)",
    )
    add_bool(parser, "--show-managed-fields", default=False, help="keep metadata.managedFields in JSON or YAML output")


def dry_run_mode(value: str) -> str:
    if value == BARE_DRY_RUN:
        return "client"
    if value not in DRY_RUN_VALUES:
        raise CliError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')
    return value


def validation_level(value: str) -> str:
    level = VALIDATE_VALUES.get(value.lower())
    if level is None:
        raise CliError(
            f'invalid - validate option "{value}"; must be one of: strict (or true), warn, ignore (or false)'
        )
    return level


def parse_hard(text: str) -> dict[str, str]:
    hard: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        resource, sep, quantity = item.partition("=")
        if not sep or not resource:
            raise CliError(f"Invalid argument syntax {item}, expected <resource>=<value>")
        if resource in hard:
            raise CliError(f'duplicate resource "{resource}" in --hard')
        try:
            parse_quantity(quantity)
        except QuantityError as error:
            raise CliError(f"{resource}: {error}") from None
        hard[resource] = quantity
    return hard


def parse_scopes(text: str) -> list[str]:
    scopes = [scope.strip() for scope in text.split(",") if scope.strip()]
    for scope in scopes:
        if scope not in SCOPES:
            raise CliError(f'unknown scope "{scope}": supported scopes are {", ".join(SCOPES)}')
    if len(set(scopes)) != len(scopes):
        raise CliError("duplicate scope in --scopes")
    return scopes


def build_quota(name: str, namespace: str | None, hard: dict[str, str], scopes: list[str]) -> dict[str, Any]:
    """The object in upstream's field order (kind, apiVersion, metadata, spec, status)."""
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    spec: dict[str, Any] = {}
    if hard:
        spec["hard"] = hard
    if scopes:
        spec["scopes"] = scopes
    return {"kind": "ResourceQuota", "apiVersion": "v1", "metadata": metadata, "spec": spec, "status": {}}


def save_config(obj: dict[str, Any]) -> None:
    applied = json.dumps(obj, separators=(",", ":")) + "\n"
    obj["metadata"].setdefault("annotations", {})[SVC.last_applied_annotation] = applied


def describe(obj: dict[str, Any], dry_run: str, output: Output) -> str:
    if output.format:
        return ""
    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")
    return f"resourcequota/{obj['metadata']['name']} created{suffix}\n"
