"""One CRD version's schema rules as the custom resource strategy uses them.

`CustomResourceSchema` (`svc/api/crd/schema.py`) prunes, defaults and validates; this wraps it in
the shape the strategy needs. While that module is absent, objects are kept as given (every field
preserved, nothing defaulted, nothing refused), as a CRD with `x-kubernetes-preserve-unknown-fields`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.machinery.field_errors import FieldError

Obj = dict[str, Any]

try:
    from svc.api.crd.schema import CustomResourceSchema
except ImportError:  # the schema package lands from its own branch
    CustomResourceSchema = None  # type: ignore[assignment,misc]


@dataclass
class SchemaRules:
    schema: Any = None

    @classmethod
    def for_version(cls, crd: Obj, version: str) -> SchemaRules:
        if CustomResourceSchema is None:
            return cls()
        return cls(CustomResourceSchema.for_version(crd, version))

    def prune(self, obj: Obj) -> list[str]:
        return [] if self.schema is None else self.schema.prune(obj)

    def default(self, obj: Obj) -> None:
        if self.schema is not None:
            self.schema.prune(obj)
            self.schema.apply_defaults(obj)

    def validate(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        return [] if self.schema is None else self.schema.validate(obj, old)

    def validate_status(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        return [] if self.schema is None else self.schema.validate_status(obj, old)

    def list_types(self) -> Any:
        return None if self.schema is None else self.schema.list_types()
