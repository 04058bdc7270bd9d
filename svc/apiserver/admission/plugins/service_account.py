"""ServiceAccount: every pod runs as a service account that exists, gets that account's image pull
secrets, and (unless automounting is off) the projected API access volume mounted in every container:
a bound token, the cluster's root CA and the namespace, as upstream's plugin injects them.

With the `kubernetes.io/enforce-mountable-secrets` annotation on the account, a pod may reference only
the secrets the account lists. Mirror pods may reference no account, secret or token projection.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]

DEFAULT_ACCOUNT = "default"
# Upstream's bound-token lifetime for injected volumes (an hour plus 7s: the warn-only marker).
TOKEN_EXPIRATION_SECONDS = 3607
PROJECTED_DEFAULT_MODE = 0o644
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_DEFAULT_ATTEMPTS = 10


def random_suffix(length: int = 5) -> str:
    """Upstream's SimpleNameGenerator suffix."""
    return "".join(random.choices(_NAME_ALPHABET, k=length))


class ServiceAccount:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        profile = context.profile
        self._volume_prefix = profile.service_account_volume + "-"
        self._mount_path = "/var/run/secrets/" + profile.label("kubernetes.io/serviceaccount")
        self._mirror_annotation = profile.label("kubernetes.io/config.mirror")
        self._enforce_annotation = profile.label("kubernetes.io/enforce-mountable-secrets")
        self._root_ca = profile.root_ca_configmap

    async def admit(self, attributes: Attributes) -> None:
        if not is_pod(attributes) or attributes.operation is not Operation.CREATE:
            return
        pod = attributes.object
        assert pod is not None
        if self._mirror_annotation in ((pod.get("metadata") or {}).get("annotations") or {}):
            return
        spec = pod.setdefault("spec", {})
        if not spec.get("serviceAccountName"):
            spec["serviceAccountName"] = DEFAULT_ACCOUNT
        account = await self._account(attributes, spec["serviceAccountName"])
        if _automounts(account, spec):
            self._mount_token(spec)
        if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
            spec["imagePullSecrets"] = [{"name": ref.get("name", "")} for ref in account["imagePullSecrets"]]

    async def validate(self, attributes: Attributes) -> None:
        if not is_pod(attributes, ("", "ephemeralcontainers")):
            return
        pod = attributes.object
        assert pod is not None
        spec = pod.get("spec") or {}
        if attributes.operation is Operation.UPDATE and attributes.subresource == "ephemeralcontainers":
            account = await self._context.get(
                "", "serviceaccounts", attributes.namespace, spec.get("serviceAccountName") or DEFAULT_ACCOUNT
            )
            if account is not None and self._enforces(account):
                self._check_ephemeral(attributes, account, spec)
            return
        if attributes.operation is not Operation.CREATE or attributes.subresource:
            return
        if self._mirror_annotation in ((pod.get("metadata") or {}).get("annotations") or {}):
            self._check_mirror(attributes, spec)
            return
        account = await self._account(attributes, spec.get("serviceAccountName") or DEFAULT_ACCOUNT)
        if self._enforces(account):
            self._check_secrets(attributes, account, spec)

    async def _account(self, attributes: Attributes, name: str) -> Obj:
        """The account from the cache, else storage; the default account is waited for a little, as
        the controller that creates it may not have caught up with a new namespace yet."""
        attempts = _DEFAULT_ATTEMPTS if name == DEFAULT_ACCOUNT else 1
        interval = random.uniform(0.1, 0.2)
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(interval)
            account = await self._context.get("", "serviceaccounts", attributes.namespace, name)
            if account is not None:
                return account
        raise forbidden(
            attributes,
            f'error looking up service account {attributes.namespace}/{name}: serviceaccount "{name}" not found',
        )

    def _mount_token(self, spec: Obj) -> None:
        volumes = spec.get("volumes") or []
        existing = next(
            (v.get("name") for v in volumes if str(v.get("name", "")).startswith(self._volume_prefix)), None
        )
        name = existing or self._volume_prefix + random_suffix()
        mount = {"name": name, "readOnly": True, "mountPath": self._mount_path}
        needed = False
        for field in ("initContainers", "containers"):
            for container in spec.get(field) or []:
                mounts = container.get("volumeMounts") or []
                if not any(m.get("mountPath") == self._mount_path for m in mounts):
                    container["volumeMounts"] = [*mounts, dict(mount)]
                    needed = True
        if existing is None and needed:
            spec["volumes"] = [*volumes, {"name": name, "projected": self._token_volume()}]

    def _token_volume(self) -> Obj:
        return {
            "defaultMode": PROJECTED_DEFAULT_MODE,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": self._root_ca, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                        ]
                    }
                },
            ],
        }

    def _enforces(self, account: Obj) -> bool:
        annotations = (account.get("metadata") or {}).get("annotations") or {}
        return annotations.get(self._enforce_annotation) == "true"

    def _check_mirror(self, attributes: Attributes, spec: Obj) -> None:
        if spec.get("serviceAccountName"):
            raise forbidden(attributes, "a mirror pod may not reference service accounts")
        if references_secrets(spec):
            raise forbidden(attributes, "a mirror pod may not reference secrets")
        for volume in spec.get("volumes") or []:
            for source in (volume.get("projected") or {}).get("sources") or []:
                if source.get("serviceAccountToken") is not None:
                    raise forbidden(attributes, "a mirror pod may not use ServiceAccountToken volume projections")

    def _check_secrets(self, attributes: Attributes, account: Obj, spec: Obj) -> None:
        name = account["metadata"]["name"]
        mountable = {ref.get("name") for ref in account.get("secrets") or []}
        for volume in spec.get("volumes") or []:
            secret = (volume.get("secret") or {}).get("secretName")
            if secret is not None and secret not in mountable:
                raise forbidden(
                    attributes,
                    f'volume with secret.secretName="{secret}" is not allowed because service account {name} '
                    "does not reference that secret",
                )
        for field, label in (("initContainers", "init container"), ("containers", "container")):
            for container in spec.get(field) or []:
                _check_container(attributes, container, label, name, mountable)
        pull = {ref.get("name") for ref in account.get("imagePullSecrets") or []}
        for ref in spec.get("imagePullSecrets") or []:
            if ref.get("name") not in pull:
                raise forbidden(
                    attributes,
                    f'image pull secret.secretName="{ref.get("name")}" is not allowed because service account '
                    f"{name} does not reference that image pull secret",
                )

    def _check_ephemeral(self, attributes: Attributes, account: Obj, spec: Obj) -> None:
        mountable = {ref.get("name") for ref in account.get("secrets") or []}
        for container in spec.get("ephemeralContainers") or []:
            _check_container(attributes, container, "ephemeral container", account["metadata"]["name"], mountable)


def _check_container(attributes: Attributes, container: Obj, label: str, account: str, mountable: set[Any]) -> None:
    for source in container.get("envFrom") or []:
        secret = (source.get("secretRef") or {}).get("name")
        if secret is not None and secret not in mountable:
            raise forbidden(
                attributes,
                f'{label} {container.get("name")} with envFrom referencing secret.secretName="{secret}" is not '
                f"allowed because service account {account} does not reference that secret",
            )
    for env in container.get("env") or []:
        secret = ((env.get("valueFrom") or {}).get("secretKeyRef") or {}).get("name")
        if secret is not None and secret not in mountable:
            raise forbidden(
                attributes,
                f'{label} {container.get("name")} with envVar "{env.get("name")}" referencing '
                f'secret.secretName="{secret}" is not allowed because service account {account} does not '
                "reference that secret",
            )


def _automounts(account: Obj, spec: Obj) -> bool:
    """The pod's preference, else the account's, else true."""
    if spec.get("automountServiceAccountToken") is not None:
        return bool(spec["automountServiceAccountToken"])
    if account.get("automountServiceAccountToken") is not None:
        return bool(account["automountServiceAccountToken"])
    return True


def references_secrets(spec: Obj) -> bool:
    if spec.get("imagePullSecrets"):
        return True
    for volume in spec.get("volumes") or []:
        if volume.get("secret") is not None:
            return True
        for source in (volume.get("projected") or {}).get("sources") or []:
            if source.get("secret") is not None:
                return True
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            if any((source.get("secretRef") or {}).get("name") for source in container.get("envFrom") or []):
                return True
            if any(((env.get("valueFrom") or {}).get("secretKeyRef")) for env in container.get("env") or []):
                return True
    return False


def build(context: PluginContext) -> ServiceAccount:
    return ServiceAccount(context)
