"""Server-side apply and managedFields tracking (upstream structured-merge-diff + fieldmanager)."""

from svc.machinery.apply.conflict import ApplyConflict, Conflict
from svc.machinery.apply.entries import ManagedFieldsError, ManagerKey, validate_managed_fields
from svc.machinery.apply.field_filter import FieldFilter
from svc.machinery.apply.fieldpath import FieldPathError, FieldSet, PathElement, make_path, path_string
from svc.machinery.apply.manager import STRIPPED, apply, default_ignored, ignored_fields, update_managed_fields
from svc.machinery.apply.shapes import shape_of
from svc.machinery.apply.typed import (
    Comparison,
    TypedError,
    compare,
    ensure_named_fields_are_members,
    field_set,
    merge,
    remove_items,
    values_equal,
)
from svc.machinery.apply.validation import validate

__all__ = [
    "STRIPPED",
    "ApplyConflict",
    "Comparison",
    "Conflict",
    "FieldFilter",
    "FieldPathError",
    "FieldSet",
    "ManagedFieldsError",
    "ManagerKey",
    "PathElement",
    "TypedError",
    "apply",
    "compare",
    "default_ignored",
    "ensure_named_fields_are_members",
    "field_set",
    "ignored_fields",
    "make_path",
    "merge",
    "path_string",
    "remove_items",
    "shape_of",
    "update_managed_fields",
    "validate",
    "validate_managed_fields",
    "values_equal",
]
