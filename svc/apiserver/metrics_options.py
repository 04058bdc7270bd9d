"""The metrics flags of every component (upstream component-base `metrics.Options`):
`--disabled-metrics`, `--allow-metric-labels` (+ `--allow-metric-labels-manifest`) and
`--show-hidden-metrics-for-version`, checked with upstream's messages. The API server and the
controller manager both add them."""

from __future__ import annotations

import argparse
import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

_METRIC_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_METRIC_NAME_RE = re.compile(f"^{_METRIC_NAME}$")
_ALLOW_KEY_RE = re.compile(f"{_METRIC_NAME},[a-zA-Z_][a-zA-Z0-9_]*")
_ALLOW_FORMAT = (
    "--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`"
)

AllowList = dict[str, dict[str, frozenset[str]]]
"""metric name -> label name -> the values kept; any other value is reported as `unexpected`."""


@dataclass
class MetricsOptions:
    disabled: frozenset[str] = frozenset()
    allow_list: AllowList = field(default_factory=dict)
    show_hidden: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--disabled-metrics",
        action="append",
        help="fully qualified metric names to disable (comma-separated, repeatable); beats showing hidden metrics",
    )
    add(
        "--allow-metric-labels",
        action="append",
        help="allow-list of label values: <MetricName>,<LabelName>=<value>,<value>... (repeatable); "
        "other values become 'unexpected'",
    )
    add(
        "--allow-metric-labels-manifest",
        help="YAML file mapping '<MetricName>,<LabelName>' to the allowed values; the flag overrides it",
    )
    add(
        "--show-hidden-metrics-for-version",
        help="the previous minor version (<major>.<minor>) whose hidden (deprecated) metrics are shown",
    )


def _string_to_string(value: str) -> dict[str, str]:
    """pflag's map flag: one `=` makes the whole text one pair (values may hold commas), more are CSV pairs."""
    pairs = [value.strip('"')] if value.count("=") == 1 else next(csv.reader([value]), [])
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, allowed = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair} must be formatted as key=value")
        found[key] = allowed
    return found


def _check_mapping(mapping: dict[str, str]) -> None:
    for key in mapping:
        match = _ALLOW_KEY_RE.search(key)
        if match is None or match.group(0) != key:
            raise ValueError(_ALLOW_FORMAT)


def _manifest(path: str) -> dict[str, str]:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as error:
        raise ValueError(f"failed to read allow list manifest: {error}") from None
    except yaml.YAMLError as error:
        raise ValueError(f"failed to parse allow list manifest: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("allowListMapping"), dict):
        data = data["allowListMapping"]  # the MetricsConfiguration field name, as the spec shows it
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError("failed to parse allow list manifest: expected a map of strings")
    try:
        _check_mapping(data)
    except ValueError as error:
        raise ValueError(f"invalid allow list mapping in manifest: {error}") from None
    return {str(key): value for key, value in data.items()}


def _allow_list(mapping: dict[str, str]) -> AllowList:
    allow: AllowList = {}
    for key, values in mapping.items():
        metric, _, label = key.partition(",")
        allow.setdefault(metric, {})[label] = frozenset(values.split(","))
    return allow


def from_args(args: argparse.Namespace, current_version: str) -> MetricsOptions:
    """`current_version` is the component's `v<major>.<minor>.<patch>`."""
    options = MetricsOptions()
    names = [name for value in args.disabled_metrics or () for name in value.split(",")]
    for name in names:
        if not _METRIC_NAME_RE.match(name):
            raise ValueError(
                f"--disabled-metrics must be fully qualified metric names matching {_METRIC_NAME_RE.pattern!r}, "
                f"got {name!r}".replace("'", '"')
            )
    options.disabled = frozenset(names)
    mapping: dict[str, str] = {}
    for value in args.allow_metric_labels or ():
        mapping.update(_string_to_string(value))
    _check_mapping(mapping)
    manifest = _manifest(args.allow_metric_labels_manifest) if args.allow_metric_labels_manifest else {}
    options.allow_list = _allow_list(mapping if args.allow_metric_labels else manifest)
    if args.show_hidden_metrics_for_version:
        major, minor = current_version.lstrip("v").split(".")[:2]
        previous = f"{major}.{int(minor) - 1}"
        if args.show_hidden_metrics_for_version != previous:
            raise ValueError(
                f"--show-hidden-metrics-for-version must be omitted or have the value '{previous}'. "
                "Only the previous minor version is allowed"
            )
        options.show_hidden = True
    return options
