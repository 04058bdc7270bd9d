"""Content negotiation: which format and which view (full, Table, metadata-only) a response takes.

Follows upstream's rules: Accept clauses are tried by preference (q weight, then specificity, then
order); the first clause that a supported format satisfies wins, including its `as`/`g`/`v`
parameters. A Table is only produced as JSON or YAML; metadata-only views in any format. Nothing
acceptable is a 406 naming the supported types.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from svc.machinery import status
from svc.wire.formats import Format


class View(enum.Enum):
    FULL = "full"
    TABLE = "Table"
    PARTIAL = "PartialObjectMetadata"
    PARTIAL_LIST = "PartialObjectMetadataList"


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    params: dict[str, str]
    q: float


@dataclass(frozen=True)
class Negotiated:
    format: Format
    view: View
    view_version: str = ""
    pretty: bool = False
    view_group: str = ""

    @property
    def plain_json(self) -> bool:
        """Whole objects as compact JSON: stored JSON can be embedded as it is."""
        return self.view is View.FULL and not self.pretty and self.format.media_type == "application/json"

    @property
    def one_pass_items(self) -> bool:
        """A list's items are read once, in order: by a view (Table, metadata-only), or for whole
        objects by the format's list encoder."""
        if self.view is View.FULL:
            return self.format.reads_items_once
        return self.view in (View.TABLE, View.PARTIAL_LIST)

    @property
    def content_type(self) -> str:
        if self.view is View.FULL:
            return self.format.media_type
        group_version = f"{self.view_group};v={self.view_version}"
        return f"{self.format.media_type};as={self.view.value};g={group_version}"


def parse_media_type(text: str) -> tuple[str, str, dict[str, str]] | None:
    base, *raw_params = text.split(";")
    base = base.strip().lower()
    if base.count("/") != 1:
        return None
    main, sub = base.split("/")
    if not main or not sub:
        return None
    params: dict[str, str] = {}
    for raw in raw_params:
        key, sep, value = raw.partition("=")
        if not sep:
            continue
        params[key.strip().lower()] = value.strip().strip('"')
    return main, sub, params


@functools.lru_cache(maxsize=256)
def parse_accept(header: str) -> list[MediaRange]:
    """Media ranges by preference; clients send the same few headers, so parses are cached (callers
    must not change the result)."""
    ranges: list[tuple[float, int, int, MediaRange]] = []
    for index, clause in enumerate(header.split(",")):
        parsed = parse_media_type(clause)
        if parsed is None:
            continue
        main, sub, params = parsed
        try:
            q = float(params.pop("q", "1"))
        except ValueError:
            q = 0.0
        if q <= 0:
            continue
        specificity = (main != "*") + (sub != "*")
        ranges.append((-q, -specificity, index, MediaRange(main, sub, params, q)))
    return [entry[3] for entry in sorted(ranges, key=lambda entry: entry[:3])]


def _view_of(params: dict[str, str], meta_group: str) -> tuple[View, str] | None:
    kind = params.get("as")
    if kind is None:
        return View.FULL, ""
    if params.get("g") != meta_group or params.get("v") not in ("v1", "v1beta1"):
        return None
    try:
        return View(kind), params["v"]
    except ValueError:
        return None


def negotiate(
    accept: str,
    formats: Sequence[Format],
    *,
    meta_group: str,
    allow_views: bool = True,
    pretty: bool = False,
) -> Negotiated:
    """Choose the response format and view for an `Accept` header."""
    if not accept.strip():
        return Negotiated(formats[0], View.FULL, pretty=pretty)
    for clause in parse_accept(accept):
        for candidate in formats:
            if clause.type not in ("*", candidate.type) or clause.subtype not in ("*", candidate.subtype):
                continue
            if clause.type == "*" and clause.subtype != "*":
                continue
            view = _view_of(clause.params, meta_group)
            if view is None:
                continue
            kind, version = view
            if kind is not View.FULL:
                if not allow_views:
                    continue
                if kind is View.TABLE and candidate.media_type not in (
                    "application/json",
                    "application/yaml",
                ):
                    continue
            return Negotiated(
                candidate,
                kind,
                version,
                pretty=pretty or clause.params.get("pretty") == "1",
                view_group=meta_group if kind is not View.FULL else "",
            )
    raise status.not_acceptable(
        "only the following media types are accepted: " + ", ".join(f.media_type for f in formats)
    )


def input_format(content_type: str, formats: Sequence[Format]) -> Format:
    """The format of a request body, from its Content-Type (JSON when absent); 415 when unsupported."""
    if not content_type.strip():
        return formats[0]
    parsed = parse_media_type(content_type)
    if parsed is not None:
        media_type = f"{parsed[0]}/{parsed[1]}"
        for candidate in formats:
            if candidate.media_type == media_type:
                return candidate
    raise status.unsupported_media_type(f.media_type for f in formats)
