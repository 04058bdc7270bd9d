"""The value transformers of encryption at rest: upstream's prefixes and layouts, first provider
writes, every provider reads, values read by a later provider are stale."""

from __future__ import annotations

import pytest

from svc.api.brand import KUBERNETES, SVC
from svc.storage.encryption.aes import AesCbc, AesGcm
from svc.storage.encryption.config import Key, Provider, ResourceConfig
from svc.storage.encryption.providers import build_transformers
from svc.storage.encryption.secretbox import Secretbox
from svc.storage.encryption.transformer import Identity, Prefixed, PrefixTransformers, TransformError

KEY16 = bytes(range(16))
KEY32 = bytes(range(32))
OTHER32 = bytes(range(1, 33))
CONTEXT = b"/registry/secrets/default/a"


def _no_kms(name: str, endpoint: str, timeout: float):
    raise AssertionError("no KMS provider is configured here")


@pytest.mark.parametrize("transformer", [AesCbc(KEY32), AesCbc(KEY16), AesGcm(KEY32), AesGcm(KEY16), Secretbox(KEY32)])
def test_round_trip_hides_the_plaintext(transformer) -> None:
    stored = transformer.to_storage(b"hunter2-secret", CONTEXT)
    assert b"hunter2" not in stored
    assert transformer.from_storage(stored, CONTEXT) == (b"hunter2-secret", False)


@pytest.mark.parametrize("make", [AesCbc, AesGcm, Secretbox])
def test_another_key_does_not_decrypt(make) -> None:
    stored = make(KEY32).to_storage(b"x" * 40, CONTEXT)
    with pytest.raises(TransformError):
        make(OTHER32).from_storage(stored, CONTEXT)


def test_aesgcm_binds_the_value_to_its_key() -> None:
    stored = AesGcm(KEY32).to_storage(b"data", CONTEXT)
    with pytest.raises(TransformError, match="message authentication failed"):
        AesGcm(KEY32).from_storage(stored, b"/registry/secrets/default/b")


def _chain(*entries: tuple[bytes, object]) -> PrefixTransformers:
    return PrefixTransformers([Prefixed(prefix, transformer) for prefix, transformer in entries])


def test_first_provider_writes_with_its_prefix() -> None:
    chain = _chain((b"k8s:enc:aescbc:v1:new:", AesCbc(KEY32)), (b"k8s:enc:aescbc:v1:old:", AesCbc(OTHER32)))
    assert chain.to_storage(b"data", CONTEXT).startswith(b"k8s:enc:aescbc:v1:new:")


def test_a_later_provider_reads_and_marks_stale() -> None:
    old = _chain((b"k8s:enc:aescbc:v1:old:", AesCbc(OTHER32)))
    rotated = _chain((b"k8s:enc:aescbc:v1:new:", AesCbc(KEY32)), (b"k8s:enc:aescbc:v1:old:", AesCbc(OTHER32)))
    assert rotated.from_storage(old.to_storage(b"data", CONTEXT), CONTEXT) == (b"data", True)
    assert rotated.from_storage(rotated.to_storage(b"data", CONTEXT), CONTEXT) == (b"data", False)


def test_identity_reads_plaintext_but_not_encrypted_values() -> None:
    chain = _chain((b"k8s:enc:aescbc:v1:k:", AesCbc(KEY32)), (b"", Identity(b"k8s:enc:")))
    assert chain.from_storage(b'{"kind":"Secret"}', CONTEXT) == (b'{"kind":"Secret"}', True)
    with pytest.raises(TransformError, match="no matching prefix found"):
        chain.from_storage(b"k8s:enc:secretbox:v1:gone:xxxx", CONTEXT)


def test_without_identity_a_plain_value_is_unreadable() -> None:
    chain = _chain((b"k8s:enc:aescbc:v1:k:", AesCbc(KEY32)))
    with pytest.raises(TransformError, match="no matching prefix found"):
        chain.from_storage(b'{"kind":"Secret"}', CONTEXT)


def _config(*resources: str) -> tuple[ResourceConfig, ...]:
    return (ResourceConfig(resources, (Provider("aesgcm", keys=(Key("k", KEY32),)),)),)


def test_resources_are_found_by_exact_name_then_group_wildcard_then_any() -> None:
    exact = build_transformers(_config("secrets"), KUBERNETES, "/registry", _no_kms)
    assert exact.for_key("/registry/secrets/default/a") is not None
    assert exact.for_key("/registry/configmaps/default/a") is None
    group = build_transformers(_config("*.apps"), KUBERNETES, "/registry", _no_kms)
    assert group.for_key("/registry/deployments/default/a") is not None
    assert group.for_key("/registry/secrets/default/a") is None
    core = build_transformers(_config("*."), KUBERNETES, "/registry", _no_kms)
    assert core.for_key("/registry/configmaps/default/a") is not None
    assert core.for_key("/registry/deployments/default/a") is None
    every = build_transformers(_config("*.*"), KUBERNETES, "/registry", _no_kms)
    assert every.for_key("/registry/stable.example.com/crontabs/default/a") is not None


def test_resources_are_read_from_upstreams_key_layout() -> None:
    services = build_transformers(
        _config("services", "nodes", "ingresses.networking.k8s.io"), KUBERNETES, "/registry", _no_kms
    )
    assert services.for_key("/registry/services/specs/default/a") is not None
    assert services.for_key("/registry/services/endpoints/default/a") is None
    assert services.for_key("/registry/minions/n1") is not None
    assert services.for_key("/registry/ingress/default/a") is not None
    crontabs = build_transformers(_config("crontabs.stable.example.com"), KUBERNETES, "/registry", _no_kms)
    assert crontabs.for_key("/registry/stable.example.com/crontabs/default/a") is not None
    assert crontabs.for_key("/registry/stable.example.com/other/default/a") is None


def test_keys_outside_the_store_prefix_are_plain() -> None:
    every = build_transformers(_config("*.*"), KUBERNETES, "/registry-1", _no_kms)
    assert every.for_key("/registry-2/secrets/default/a") is None


def test_prefix_follows_the_brand_profile() -> None:
    config = (ResourceConfig(("secrets",), (Provider("secretbox", keys=(Key("k1", KEY32),)),)),)
    for profile, prefix in ((SVC, b"svc:enc:secretbox:v1:k1:"), (KUBERNETES, b"k8s:enc:secretbox:v1:k1:")):
        transformer = build_transformers(config, profile, "/registry", _no_kms).for_key(CONTEXT.decode())
        assert transformer is not None
        assert transformer.to_storage(b"data", CONTEXT).startswith(prefix)


def test_groups_are_written_in_the_profile_spelling() -> None:
    config = _config("roles.rbac.authorization.svc")
    transformers = build_transformers(config, SVC, "/registry", _no_kms)
    assert transformers.for_key("/registry/rbac.authorization.k8s.io/roles/default/a") is not None
