"""The `Webhook` conversion strategy: one ConversionReview per batch of objects, over HTTPS.

Mirrors upstream's `webhookConverter`: the review version is the first of the CRD's
`conversionReviewVersions` the server speaks (v1, v1beta1); a v1 answer must be a v1 ConversionReview
carrying the request's uid; a result other than `Success` fails with the webhook's message. Every
failure reads `conversion webhook for <gvk> failed: <why>`, where `<gvk>` is the group/version/kind of
the list handed over, which upstream leaves empty for a single object (`/, Kind=`); the caller
(`conversion.Converter`) wraps that in its own `conversion for <gvk> failed: ...`. Checking the
converted objects themselves (count, versions, kinds, metadata) is also the caller's job, as upstream.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from svc.apiserver.webhook_client import ClientConfig, WebhookCallError, WebhookClient

Obj = dict[str, Any]

SUPPORTED_REVIEW_VERSIONS = ("v1", "v1beta1")
TIMEOUT_SECONDS = 30.0
"""Upstream gives conversion calls no per-CRD timeout; this is the client's."""


class ConversionFailed(Exception):
    """A conversion that produced no objects; `str()` is upstream's text."""


class WebhookConverter:
    def __init__(
        self,
        *,
        client: WebhookClient,
        client_config: ClientConfig,
        review_versions: Sequence[str],
        review_group: str,
        timeout_seconds: float = TIMEOUT_SECONDS,
    ) -> None:
        self.client = client
        self.client_config = client_config
        self.review_version = next((v for v in review_versions if v in SUPPORTED_REVIEW_VERSIONS), None)
        self.review_api_version = f"{review_group}/{self.review_version}"
        self.timeout_seconds = timeout_seconds

    async def convert(self, objects: list[Obj], desired_api_version: str) -> list[Obj]:
        """The webhook's converted objects, unchecked beyond the review itself."""
        if self.review_version is None:
            raise ConversionFailed("no supported conversion review versions")
        uid = str(uuid.uuid4())
        review = {
            "kind": "ConversionReview",
            "apiVersion": self.review_api_version,
            "request": {"uid": uid, "desiredAPIVersion": desired_api_version, "objects": objects},
            "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}},
        }
        try:
            answer = await self.client.post_json(self.client_config, review, timeout_seconds=self.timeout_seconds)
            converted = self._converted_objects(uid, answer)
        except (WebhookCallError, ConversionFailed) as error:
            raise ConversionFailed(f"conversion webhook for /, Kind= failed: {error}") from None
        return converted

    def _converted_objects(self, uid: str, answer: Any) -> list[Obj]:
        if not isinstance(answer, Mapping):
            raise ConversionFailed(f"expected webhook response of {self.review_api_version}, Kind=ConversionReview")
        if self.review_version == "v1":
            # v1beta1 answers were never checked for their kind or uid; v1 answers are.
            got_api_version, got_kind = answer.get("apiVersion") or "", answer.get("kind") or ""
            if (got_api_version, got_kind) != (self.review_api_version, "ConversionReview"):
                raise ConversionFailed(
                    f"expected webhook response of {self.review_api_version}, Kind=ConversionReview, "
                    f"got {gvk_text(got_api_version, got_kind)}"
                )
        response = answer.get("response")
        if not isinstance(response, Mapping):
            raise ConversionFailed("no response provided")
        if self.review_version == "v1" and response.get("uid") != uid:
            raise ConversionFailed(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
        result = response.get("result") or {}
        if result.get("status") != "Success":
            if result.get("message"):
                raise ConversionFailed(str(result["message"]))
            raise ConversionFailed(f"response.result.status was '{result.get('status') or ''}', not 'Success'")
        converted = response.get("convertedObjects") or []
        if not isinstance(converted, list) or not all(isinstance(item, dict) for item in converted):
            raise ConversionFailed("convertedObjects must be a list of objects")
        return converted


def gvk_text(api_version: str, kind: str) -> str:
    """Go's `GroupVersionKind.String()`: `group/version, Kind=kind` (`/v1, Kind=X` for the core group)."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"
