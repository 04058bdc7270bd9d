"""One CRD version's schema rules in the shape the custom resource strategy uses them.

`CustomResourceSchema` (`svc/api/crd/`) prunes, defaults and validates; decoding prunes and
defaults together (upstream's unstructured decoder does both before admission), and pruning alone
names the dropped fields for field validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.api.crd.schema import CustomResourceSchema
from svc.machinery.field_errors import FieldError

Obj = dict[str, Any]


@dataclass(frozen=True)
class SchemaRules:
    schema: CustomResourceSchema

    @classmethod
    def for_version(cls, crd: Obj, version: str) -> SchemaRules:
        return cls(CustomResourceSchema.for_version(crd, version))

    def prune(self, obj: Obj) -> list[str]:
        return self.schema.prune(obj)

    def default(self, obj: Obj) -> None:
        self.schema.prune(obj)
        self.schema.apply_defaults(obj)

    def apply_defaults(self, obj: Obj) -> None:
        self.schema.apply_defaults(obj)

    def validate(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        return self.schema.validate(obj, old)

    def validate_status(self, obj: Obj, old: Obj) -> list[FieldError]:
        return self.schema.validate_status(obj, old)
