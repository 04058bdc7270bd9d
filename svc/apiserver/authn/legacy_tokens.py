"""Legacy service-account tokens: the JWTs kept in Secrets of type `kubernetes.io/service-account-token`.

Their issuer is fixed (`kubernetes/serviceaccount` upstream, the profile's spelling here), their claims
are flat (`kubernetes.io/serviceaccount/namespace`, `.../secret.name`, `.../service-account.name`,
`.../service-account.uid`), and they carry no audience: they are good for the API's own audiences.
With `--service-account-lookup` (the default) the Secret must still exist, hold this very token and
not be marked invalid, and the service account must exist with the uid the token names. Each day a
token is used, the Secret gets the `legacy-token-last-used` label with the date (upstream's tracking,
which the legacy-token cleaner reads); the label is written in the background, never on the request path.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import datetime
import logging
from collections.abc import Callable
from typing import Any

from svc.api.brand import Profile
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.object_lookup import ObjectLookup
from svc.apiserver.authn.service_account_jwt import Verifier, unverified_issuer
from svc.apiserver.authn.service_account_tokens import check_audiences, service_account_user
from svc.apiserver.authn.tokens import TokenResult
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

log = logging.getLogger(__name__)


def legacy_issuer(profile: Profile) -> str:
    return f"{profile.default_service}/serviceaccount"


class LegacyTokens:
    def __init__(
        self,
        *,
        profile: Profile,
        verifier: Verifier,
        implicit_audiences: tuple[str, ...],
        lookup: bool,
        objects: ObjectLookup,
        store_for: Callable[[str, str], GenericStore],
        writer: UserInfo,
        today: Callable[[], str] = lambda: datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
    ) -> None:
        self._issuer = legacy_issuer(profile)
        self._prefix = f"{profile.label_domain}/serviceaccount/"
        self.last_used_label = profile.label("kubernetes.io/legacy-token-last-used")
        self._invalid_since_label = profile.label("kubernetes.io/legacy-token-invalid-since")
        self._verifier = verifier
        self._implicit = implicit_audiences
        self._lookup = lookup
        self._objects = objects
        self._store_for = store_for
        self._writer = writer
        self._today = today
        self._tracking: dict[tuple[str, str], asyncio.Task[None]] = {}

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        if unverified_issuer(token) != self._issuer:
            return None
        claims = await self._verifier.verify(token)
        granted = check_audiences(claims, audiences, self._implicit)
        values = {
            name: claims.get(self._prefix + name)
            for name in ("namespace", "secret.name", "service-account.name", "service-account.uid")
        }
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise AuthenticationError("sub claim is missing")
        for name, label in (
            ("namespace", "namespace"),
            ("secret.name", "secretName"),
            ("service-account.name", "serviceAccountName"),
            ("service-account.uid", "serviceAccountUID"),
        ):
            if not isinstance(values[name], str) or not values[name]:
                raise AuthenticationError(f"{label} claim is missing")
        namespace, secret, account, uid = (str(values[name]) for name in values)
        if subject != f"system:serviceaccount:{namespace}:{account}":
            raise AuthenticationError("sub claim is invalid")
        if self._lookup:
            await self._check(token, namespace, secret, account, uid)
        return TokenResult(service_account_user(namespace, account, uid), granted)

    async def _check(self, token: str, namespace: str, secret_name: str, account: str, uid: str) -> None:
        secret = await self._objects.identity("secrets", namespace, secret_name)
        if secret is None or secret.deletion_timestamp:
            raise AuthenticationError("service account token has been invalidated")
        stored: Any = (secret.obj.get("data") or {}).get("token", "")
        try:
            matches = isinstance(stored, str) and base64.b64decode(stored, validate=True) == token.encode()
        except (binascii.Error, ValueError):
            matches = False
        if not matches:
            raise AuthenticationError("service account token does not match server's copy")
        labels = (secret.obj.get("metadata") or {}).get("labels") or {}
        if labels.get(self._invalid_since_label):
            raise AuthenticationError("service account token has been invalidated")
        found = await self._objects.identity("serviceaccounts", namespace, account)
        if found is None:
            raise AuthenticationError(f'serviceaccounts "{account}" not found')
        if found.deletion_timestamp:
            raise AuthenticationError(f"ServiceAccount {namespace}/{account} has been deleted")
        if found.uid != uid:
            raise AuthenticationError(f"ServiceAccount UID ({found.uid}) does not match claim ({uid})")
        today = self._today()
        if labels.get(self.last_used_label) != today and (namespace, secret_name) not in self._tracking:
            task = asyncio.create_task(self._mark_used(namespace, secret_name, today))
            self._tracking[(namespace, secret_name)] = task
            task.add_done_callback(lambda _: self._tracking.pop((namespace, secret_name), None))

    async def _mark_used(self, namespace: str, name: str, today: str) -> None:
        store = self._store_for("", "secrets")

        async def label(current: dict[str, Any] | None) -> dict[str, Any]:
            if current is None:
                raise status.not_found_path()
            current["metadata"].setdefault("labels", {})[self.last_used_label] = today
            return current

        with contextlib.suppress(status.StatusError):
            await store.update(
                namespace, name, label, admission=NoAdmission(), user=self._writer, options=WriteOptions()
            )

    async def close(self) -> None:
        tasks = list(self._tracking.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
