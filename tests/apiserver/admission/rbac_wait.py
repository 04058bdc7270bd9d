"""Wait until a just-written RBAC grant is in force: the authorizer reads roles and bindings from the
watch caches, a cache flush after the write, so a test acting at once may still be refused."""

from __future__ import annotations

import time
from typing import Any

from svc.client.rest import RestClient

REVIEWS = "/apis/authorization.svc/v1/subjectaccessreviews"


def wait_for_rule(admin: RestClient, user: str, rule: dict[str, Any], seconds: float = 10.0) -> None:
    resource, _, subresource = rule["resources"][0].partition("/")
    attributes = {"group": rule["apiGroups"][0], "resource": resource, "verb": rule["verbs"][0]}
    if subresource:
        attributes["subresource"] = subresource
    review = {"kind": "SubjectAccessReview", "spec": {"user": user, "resourceAttributes": attributes}}
    deadline = time.monotonic() + seconds
    for _ in range(1000):
        answer = admin.request("POST", REVIEWS, body=review).json()
        if answer.get("status", {}).get("allowed") or time.monotonic() > deadline:
            return
        time.sleep(0.01)
