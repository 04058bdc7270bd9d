"""Rejections as upstream's admission plugins phrase them: `<resource> "<name>" is forbidden: <why>`,
named by the object (its generateName before a name is generated), else the request, else "Unknown"."""

from __future__ import annotations

from svc.machinery import status
from svc.registry.admission import Attributes


def subject_name(attributes: Attributes) -> str:
    metadata = (attributes.object or {}).get("metadata") or {}
    return metadata.get("name") or metadata.get("generateName") or attributes.name or "Unknown"


def forbidden(attributes: Attributes, why: str) -> status.StatusError:
    return status.forbidden(attributes.resource.group_resource, subject_name(attributes), why)
