"""Columns of API Priority and Fairness: flow schemas and priority level configurations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.columns import descriptions
from svc.api.columns.common import NONE, age_column, field, items, name_column, number, text
from svc.wire.views import Column, Obj


def _dangling(schema: Obj) -> str:
    """The status of the `Dangling` condition (the priority level is missing), `?` before one is set."""
    for condition in items(schema, "status", "conditions"):
        if text(condition, "type") == "Dangling":
            return text(condition, "status")
    return "?"


FLOW_SCHEMA = (
    name_column(),
    Column(
        "PriorityLevel",
        "string",
        lambda obj: text(obj, "spec", "priorityLevelConfiguration", "name"),
        description=descriptions.FLOW_SCHEMA_PRIORITY_LEVEL,
    ),
    Column(
        "MatchingPrecedence",
        "string",
        lambda obj: number(obj, "spec", "matchingPrecedence"),
        description=descriptions.FLOW_SCHEMA_MATCHING_PRECEDENCE,
    ),
    Column(
        "DistinguisherMethod",
        "string",
        lambda obj: (
            text(obj, "spec", "distinguisherMethod", "type")
            if isinstance(field(obj, "spec", "distinguisherMethod"), dict)
            else NONE
        ),
        description=descriptions.FLOW_SCHEMA_DISTINGUISHER_METHOD,
    ),
    age_column(),
    Column(
        "MissingPL",
        "string",
        _dangling,
        description="references a broken or non-existent PriorityLevelConfiguration",
    ),
)


def _limited(*path: str) -> Callable[[Obj], Any]:
    """A number of a limited level's configuration, `<none>` for exempt levels (and unset queuing)."""

    def cell(level: Obj) -> Any:
        limited = field(level, "spec", "limited")
        if not isinstance(limited, dict) or (len(path) > 1 and not isinstance(field(limited, *path[:-1]), dict)):
            return NONE
        return number(limited, *path)

    return cell


PRIORITY_LEVEL_CONFIGURATION = (
    name_column(),
    Column("Type", "string", lambda obj: text(obj, "spec", "type"), description=descriptions.PRIORITY_LEVEL_TYPE),
    Column(
        "NominalConcurrencyShares",
        "string",
        _limited("nominalConcurrencyShares"),
        description=descriptions.PRIORITY_LEVEL_NOMINAL_SHARES,
    ),
    Column(
        "Queues",
        "string",
        _limited("limitResponse", "queuing", "queues"),
        description=descriptions.PRIORITY_LEVEL_QUEUES,
    ),
    Column(
        "HandSize",
        "string",
        _limited("limitResponse", "queuing", "handSize"),
        description=descriptions.PRIORITY_LEVEL_HAND_SIZE,
    ),
    Column(
        "QueueLengthLimit",
        "string",
        _limited("limitResponse", "queuing", "queueLengthLimit"),
        description=descriptions.PRIORITY_LEVEL_QUEUE_LENGTH_LIMIT,
    ),
    age_column(),
)
