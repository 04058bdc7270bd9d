"""`-o/--output` for svcctl: json, yaml, kyaml, name, Go templates and JSONPath, as kubectl prints them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc.cli.errors import CliError
from svc.cli.printers.errors import TemplateError
from svc.cli.printers.gotemplate import parse_go_template
from svc.cli.printers.jsonpath import parse_jsonpath
from svc.cli.printers.kyaml import to_kyaml
from svc.wire.formats import yaml_dump

TEMPLATE_FORMATS = (
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
    "jsonpath",
    "jsonpath-as-json",
    "jsonpath-file",
)
FORMATS = ("json", "yaml", "kyaml", "name", *TEMPLATE_FORMATS)
_FILE_FORMATS = ("go-template-file", "templatefile", "jsonpath-file")


@dataclass(frozen=True)
class Output:
    format: str = ""
    template: str = ""
    allow_missing_template_keys: bool = True
    show_managed_fields: bool = False


def parse_output(value: str, template: str, allow_missing: bool, show_managed_fields: bool) -> Output:
    """`-o go-template={{.x}}` and `-o go-template --template={{.x}}` are the same request."""
    name, sep, inline = value.partition("=")
    if name and name not in FORMATS:
        allowed = ", ".join(FORMATS)
        raise CliError(
            f'unable to match a printer suitable for the output format "{value}", allowed formats are: {allowed}'
        )
    text = inline if sep else template
    if name in TEMPLATE_FORMATS and not text:
        raise CliError("template format specified but no template given")
    if name in _FILE_FORMATS:
        try:
            text = Path(text).read_text()
        except OSError as error:
            raise CliError(f"error reading --template {text}, {error.strerror}") from None
    return Output(name, text, allow_missing, show_managed_fields)


def _strip_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        return {**obj, "metadata": {k: v for k, v in metadata.items() if k != "managedFields"}}
    return obj


def render(obj: dict[str, Any], output: Output, *, resource: str) -> str:
    """The text to print for `obj` (a single object)."""
    if not output.show_managed_fields:
        obj = _strip_managed_fields(obj)
    kind = output.format
    try:
        if kind == "json":
            return json.dumps(obj, indent=4, ensure_ascii=False) + "\n"
        if kind == "yaml":
            return yaml_dump(obj)
        if kind == "kyaml":
            return to_kyaml(obj)
        if kind == "name":
            return f"{resource}/{obj['metadata']['name']}\n"
        if kind in ("jsonpath", "jsonpath-file"):
            return parse_jsonpath(output.template).execute(obj, allow_missing_keys=output.allow_missing_template_keys)
        if kind == "jsonpath-as-json":
            return parse_jsonpath(output.template).execute_as_json(
                obj, allow_missing_keys=output.allow_missing_template_keys
            )
        return parse_go_template(output.template).execute(obj, allow_missing_keys=output.allow_missing_template_keys)
    except TemplateError as error:
        raise CliError(str(error), stdout=error.output) from None
