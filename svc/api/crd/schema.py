"""One CRD version's schema, as the custom resource strategy uses it: the one entry point of `api/crd`.

`CustomResourceSchema.for_version(crd, version)` reads the version's `openAPIV3Schema` once per CRD
revision (cached by uid, resourceVersion and version, so a CRD update is picked up and an unchanged
CRD costs a dict lookup) and offers what upstream's custom resource strategy does with it:

- `prune(obj)` drops undeclared fields and returns their paths (for `unknown field` warnings);
- `apply_defaults(obj)` fills `default`s (on create, update and reading from storage);
- `validate(obj, old)` and `validate_status(obj, old)` give the field errors of the whole object:
  OpenAPI value validation, list-type uniqueness, embedded resources and `x-kubernetes-validations`,
  with ratcheting of unchanged values when `old` is given;
- `node_at(path)` the structural node (list type, map keys, map type) server-side apply merges by.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final

from svc.api.crd import cel_rules, defaulting, pruning
from svc.api.crd.structural import Structural, structural
from svc.api.crd.value_validation import MISSING, Node, compile_schema
from svc.machinery.field_errors import ErrorType, FieldError, invalid

_CACHE_SIZE: Final = 1024


def version_schema(crd: Mapping[str, Any], version: str) -> Mapping[str, Any]:
    """The raw openAPIV3Schema of `version` of a CRD, or {} when it has none."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    versions = spec.get("versions")
    for entry in versions if isinstance(versions, list) else ():
        if isinstance(entry, Mapping) and entry.get("name") == version:
            holder = entry.get("schema")
            found = holder.get("openAPIV3Schema") if isinstance(holder, Mapping) else None
            return found if isinstance(found, Mapping) else {}
    return {}


_BLOCKING: Final = frozenset(
    {ErrorType.NOT_SUPPORTED, ErrorType.REQUIRED, ErrorType.TOO_LONG, ErrorType.TOO_MANY, ErrorType.TYPE_INVALID}
)
_NOT_CHECKED: Final = (
    "some validation rules were not checked because the object was invalid; correct the existing errors to "
    "complete validation"
)


class CustomResourceSchema:
    """A CRD version's schema compiled for pruning, defaulting and validation; immutable and shared."""

    _cache: dict[tuple[str, str, str], CustomResourceSchema] = {}
    _lock = threading.Lock()

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self.root: Structural = structural(schema)
        self._values: Node = compile_schema(schema)
        self._rules = cel_rules.compile_rules(self.root)

    @classmethod
    def for_version(cls, crd: Mapping[str, Any], version: str) -> CustomResourceSchema:
        meta = crd.get("metadata") if isinstance(crd.get("metadata"), Mapping) else {}
        uid, revision = meta.get("uid"), meta.get("resourceVersion")
        if not (isinstance(uid, str) and uid and isinstance(revision, str) and revision):
            return cls(version_schema(crd, version))
        key = (uid, revision, version)
        found = cls._cache.get(key)
        if found is None:
            found = cls(version_schema(crd, version))
            with cls._lock:
                if len(cls._cache) >= _CACHE_SIZE:
                    cls._cache.pop(next(iter(cls._cache)))
                cls._cache[key] = found
        return found

    def prune(self, obj: dict[str, Any]) -> list[str]:
        """Drop undeclared fields in place; the dropped paths, as upstream names them in warnings."""
        return pruning.prune(obj, self.root)

    def apply_defaults(self, obj: dict[str, Any]) -> None:
        """Drop nulls the schema neither allows nor defaults, then fill the schema's defaults in place,
        as upstream's defaulter does on decoding and on reading from storage."""
        defaulting.drop_disallowed_nulls(obj, self.root)
        defaulting.apply_defaults(obj, self.root)

    def validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
        """The field errors of a custom resource on create (`old` None) or update (ratcheted)."""
        errors = self._values.validate(obj, "", MISSING if old is None else old)
        return errors + self._rule_errors(errors, obj, old)

    def validate_status(self, obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
        """The errors of a status update: the schema of `status` on the status (upstream builds a
        validator of that subtree alone), then the rules of the whole object, ratcheted."""
        errors: list[FieldError] = []
        status = self._values.properties.get("status")
        if status is not None and "status" in obj:
            errors += status.validate(obj["status"], "status", old.get("status", MISSING))
        return errors + self._rule_errors(errors, obj, old)

    def _rule_errors(
        self, errors: list[FieldError], obj: Mapping[str, Any], old: Mapping[str, Any] | None
    ) -> list[FieldError]:
        """The rules' errors; like upstream, none are run after a type, required, enum or size error
        (the object lacks the shape the rules were written for), which one error then says."""
        if not self._rules.has_rules:
            return []
        if any(error.type in _BLOCKING for error in errors):
            return [invalid(cel_rules.NIL_PATH, None, _NOT_CHECKED)]
        return self._rules.validate(obj, old)

    def node_at(self, path: Sequence[str]) -> Structural | None:
        """The structural node at a path of member names (list items passed through), for apply."""
        return self.root.at(path)
