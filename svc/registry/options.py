"""Options of the verbs, already parsed and validated (the handlers build them from the request)."""

from __future__ import annotations

from dataclasses import dataclass, field

from svc.machinery.fields import FieldSelector
from svc.machinery.labels import LabelSelector
from svc.machinery.shards import ShardSelector


@dataclass(frozen=True)
class ListOptions:
    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    limit: int = 0
    continue_token: str = ""
    resource_version: str = ""
    resource_version_match: str = ""
    shard_selector: ShardSelector | None = None

    @property
    def filtered(self) -> bool:
        return bool(
            (self.label_selector is not None and not self.label_selector.empty)
            or (self.field_selector is not None and not self.field_selector.empty)
            or self.shard_selector is not None
        )


@dataclass(frozen=True)
class Preconditions:
    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True)
class DeleteOptions:
    grace_period_seconds: int | None = None
    preconditions: Preconditions = field(default_factory=Preconditions)
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    dry_run: bool = False
    ignore_store_read_error: bool = False


@dataclass(frozen=True)
class WriteOptions:
    """Options shared by create, update and patch."""

    dry_run: bool = False
    field_manager: str = ""
    subresource: str = ""
    field_validation: str = ""  # the request's `fieldValidation`, as given (admission webhooks see it)
