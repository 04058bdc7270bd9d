"""Jobs: unless `manualSelector` is true, the server generates the selector at create, as upstream's
`generateSelector`: the template gets `batch.kubernetes.io/job-name`, `job-name`,
`batch.kubernetes.io/controller-uid` and `controller-uid` labels (where the user set none), and the
selector matches the controller uid, so a Job's pods are its own even when another Job of the same
name existed before."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy

Obj = dict[str, Any]


def generate_selector(obj: Obj, profile_label: Any) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict) or spec.get("manualSelector") is True:
        return
    metadata = obj["metadata"]
    template = spec.setdefault("template", {})
    if not isinstance(template, dict):
        return
    template_metadata = template.setdefault("metadata", {})
    labels = template_metadata.get("labels")
    if not isinstance(labels, dict):
        labels = template_metadata["labels"] = {}
    uid_label = profile_label("batch.kubernetes.io/controller-uid")
    for key, value in (
        ("job-name", metadata.get("name", "")),
        (profile_label("batch.kubernetes.io/job-name"), metadata.get("name", "")),
        ("controller-uid", metadata.get("uid", "")),
        (uid_label, metadata.get("uid", "")),
    ):
        labels.setdefault(key, value)
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    match_labels = selector.get("matchLabels")
    if not isinstance(match_labels, dict):
        match_labels = selector["matchLabels"] = {}
    match_labels.setdefault(uid_label, metadata.get("uid", ""))


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, prepare_for_create=lambda obj: generate_selector(obj, base.profile.label))
