"""One CRD version's schema rules in the shape the custom resource strategy uses them.

`CustomResourceSchema` (`svc/api/crd/`) prunes, defaults and validates; decoding prunes and
defaults together (upstream's unstructured decoder does both before admission), and pruning alone
names the dropped fields for field validation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from svc.api.crd.schema import CustomResourceSchema
from svc.api.schemas import schema_for
from svc.machinery.field_errors import FieldError

Obj = dict[str, Any]
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


@functools.cache
def _object_meta_fields() -> frozenset[str]:
    schema = schema_for(_OBJECT_META)
    assert schema is not None
    return frozenset(schema.properties)


def _prune_metadata(obj: Obj) -> list[str]:
    """Upstream decodes a custom resource's metadata as ObjectMeta: other fields are dropped (and
    reported as unknown, as the schema's own are)."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return []
    unknown = [key for key in metadata if key not in _object_meta_fields()]
    for key in unknown:
        del metadata[key]
    return [f"metadata.{key}" for key in unknown]


@dataclass(frozen=True)
class SchemaRules:
    schema: CustomResourceSchema

    @classmethod
    def for_version(cls, crd: Obj, version: str) -> SchemaRules:
        return cls(CustomResourceSchema.for_version(crd, version))

    def prune(self, obj: Obj) -> list[str]:
        return _prune_metadata(obj) + self.schema.prune(obj)

    def default(self, obj: Obj) -> None:
        self.prune(obj)
        self.schema.apply_defaults(obj)

    def apply_defaults(self, obj: Obj) -> None:
        self.schema.apply_defaults(obj)

    def validate(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        return self.schema.validate(obj, old)

    def validate_status(self, obj: Obj, old: Obj) -> list[FieldError]:
        return self.schema.validate_status(obj, old)
