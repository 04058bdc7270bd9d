"""Defaults applied to custom resources as they are read, as upstream's storage decoder applies them:
an object stored before its CRD gained a `default` shows the default on every read.

Only versions whose schema declares a default get this store: reading then decodes each object (a
JSON list from the watch cache can no longer reuse the cached bytes), which the others are spared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from svc.registry.list_items import ItemForm
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]


def declares_defaults(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "default" in schema or any(declares_defaults(value) for value in schema.values())
    if isinstance(schema, list):
        return any(declares_defaults(item) for item in schema)
    return False


def _none(obj: Obj) -> None:
    return None


@dataclass
class DefaultingStore(GenericStore):
    apply_defaults: Callable[[Obj], None] = field(default=_none)

    def present(self, obj: Obj) -> Obj:
        obj = super().present(obj)
        self.apply_defaults(obj)
        return obj

    @property
    def watch_present(self) -> Callable[[Obj], Obj] | None:
        return self.present

    async def list(self, namespace: str, options: ListOptions, *, form: ItemForm = ItemForm.DECODED) -> Obj:
        return await super().list(namespace, options, form=ItemForm.DECODED if form is ItemForm.JSON else form)
