"""KMS v2 encryption with a plugin written here: a gRPC server on a unix socket speaking upstream's
`KeyManagementService` (Status, Encrypt, Decrypt)."""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from prometheus_client.parser import text_string_to_metric_families

from svc.storage.encryption.kms import messages
from svc.testing.harness import in_process_server
from tests.apiserver.test_encryption_at_rest import PLAINTEXT, SECRETS, create_secret, raw_value, write_config

PREFIX = b"svc:enc:kms:v2:vault:"


class FakeKms:
    """Encrypts with an AES key per key ID; the current key ID can be changed to rotate. (Method names
    are the gRPC service's.)"""

    def __init__(self) -> None:
        self.key_id = "key-1"
        self.healthz = "ok"
        self.keys: dict[str, bytes] = {}
        self.decrypts = 0

    def _key(self, key_id: str) -> bytes:
        return self.keys.setdefault(key_id, os.urandom(32))

    def Status(self, request, context):
        return messages.StatusResponse(version="v2", healthz=self.healthz, key_id=self.key_id)

    def Encrypt(self, request, context):
        nonce = os.urandom(12)
        sealed = nonce + AESGCM(self._key(self.key_id)).encrypt(nonce, request.plaintext, None)
        return messages.EncryptResponse(ciphertext=sealed, key_id=self.key_id, annotations={"example.com/v": b"1"})

    def Decrypt(self, request, context):
        self.decrypts += 1
        assert request.annotations["example.com/v"] == b"1"
        key = self._key(request.key_id)
        return messages.DecryptResponse(
            plaintext=AESGCM(key).decrypt(request.ciphertext[:12], request.ciphertext[12:], None)
        )

    def handler(self) -> grpc.GenericRpcHandler:
        """The service, routed by method name to this object's methods."""
        handlers = {
            name: grpc.unary_unary_rpc_method_handler(
                getattr(self, name),
                request_deserializer=request.FromString,
                response_serializer=response.SerializeToString,
            )
            for name, (request, response) in messages.METHODS.items()
        }
        return grpc.method_handlers_generic_handler(messages.SERVICE, handlers)


@pytest.fixture
def plugin() -> Iterator[tuple[FakeKms, str]]:
    # A short directory: unix socket paths are limited to about 100 bytes.
    with tempfile.TemporaryDirectory(prefix="kms-") as directory:
        endpoint = f"unix://{directory}/kms.sock"
        fake = FakeKms()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        server.add_generic_rpc_handlers((fake.handler(),))
        server.add_insecure_port(endpoint)
        server.start()
        try:
            yield fake, endpoint
        finally:
            server.stop(grace=None)


def _kms_config(tmp_path: Path, endpoint: str) -> Path:
    return write_config(
        tmp_path / "enc.yaml", f"  - kms: {{apiVersion: v2, name: vault, endpoint: '{endpoint}', timeout: 2s}}\n"
    )


def _stored(running, name: str) -> Any:
    value = raw_value(running, f"/secrets/default/{name}")
    assert value.startswith(PREFIX)
    message = messages.EncryptedObject()
    message.ParseFromString(value[len(PREFIX) :])
    return message


def test_secrets_are_sealed_by_the_plugin_and_read_back(svc_server_factory, tmp_path, plugin) -> None:
    _, endpoint = plugin
    running = svc_server_factory(f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}")
    client = running.client()
    create_secret(client, "db")
    stored = _stored(running, "db")
    assert stored.keyID == "key-1"
    assert stored.encryptedDEKSourceType == messages.HKDF_SHA256_XNONCE_AES_GCM_SEED
    assert PLAINTEXT not in stored.encryptedData
    got = client.request("GET", f"{SECRETS}/db").json()
    assert base64.b64decode(got["data"]["password"]) == PLAINTEXT


def test_the_seed_is_decrypted_once_and_cached(svc_server_factory, tmp_path, plugin) -> None:
    fake, endpoint = plugin
    running = svc_server_factory(
        f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}", "--watch-cache=false"
    )
    client = running.client()
    for name in ("a", "b", "c"):
        create_secret(client, name)
    for _ in range(3):
        assert len(client.request("GET", SECRETS).json()["items"]) == 3
    assert fake.decrypts == 0
    assert len({_stored(running, name).encryptedDEKSource for name in ("a", "b", "c")}) == 1


def test_a_new_key_id_rotates_the_seed_and_marks_old_values_stale(svc_server_factory, tmp_path, plugin) -> None:
    fake, endpoint = plugin
    running = svc_server_factory(f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}")
    client = running.client()
    create_secret(client, "db")
    fake.key_id = "key-2"
    kms = running.server.encryption.current.kms[0]
    running.call(kms.check())
    current = client.request("GET", f"{SECRETS}/db").json()
    assert client.request("PUT", f"{SECRETS}/db", body=current).status == 200
    assert _stored(running, "db").keyID == "key-2"


def test_values_of_a_previous_process_are_read_through_the_plugin(tmp_path, plugin) -> None:
    fake, endpoint = plugin
    config = _kms_config(tmp_path, endpoint)
    data_dir = tmp_path / "server"
    with in_process_server(data_dir, f"--encryption-provider-config={config}") as first:
        create_secret(first.client(), "db")
    with in_process_server(data_dir, f"--encryption-provider-config={config}") as second:
        got = second.client().request("GET", f"{SECRETS}/db").json()
    assert base64.b64decode(got["data"]["password"]) == PLAINTEXT
    assert fake.decrypts == 1


def test_health_follows_the_plugin(svc_server_factory, tmp_path, plugin) -> None:
    fake, endpoint = plugin
    running = svc_server_factory(f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}")
    client = running.client()
    assert client.request("GET", "/healthz/kms-provider-0").status == 200
    fake.healthz = "sealed"
    running.call(running.server.encryption.current.kms[0].check())
    response = client.request("GET", "/healthz?verbose")
    assert response.status == 500
    assert "[-]kms-provider-0 failed: reason withheld" in response.body.decode()


def test_automatic_reload_has_one_kms_providers_check(svc_server_factory, tmp_path, plugin) -> None:
    _, endpoint = plugin
    running = svc_server_factory(
        f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}",
        "--encryption-provider-config-automatic-reload",
    )
    client = running.client()
    assert client.request("GET", "/healthz/kms-providers").status == 200
    assert client.request("GET", "/healthz/kms-provider-0").status == 404


def test_writes_fail_while_the_plugin_is_unreachable(svc_server_factory, tmp_path) -> None:
    with tempfile.TemporaryDirectory(prefix="kms-") as directory:
        running = svc_server_factory(
            f"--encryption-provider-config={_kms_config(tmp_path, f'unix://{directory}/absent.sock')}"
        )
        client = running.client()
        body = {"metadata": {"name": "db"}, "data": {"password": base64.b64encode(PLAINTEXT).decode()}}
        response = client.request("POST", SECRETS, body=body)
        assert response.status == 500
        assert "failed to encrypt with KMS provider vault" in response.json()["message"]
        assert client.request("GET", "/healthz/kms-provider-0").status == 500


def _create(client, name: str):
    body = {"metadata": {"name": name}, "data": {"password": base64.b64encode(PLAINTEXT).decode()}}
    return client.request("POST", SECRETS, body=body)


def test_a_confirmed_write_seed_is_reused_until_it_expires(svc_server_factory, tmp_path, plugin) -> None:
    fake, endpoint = plugin
    running = svc_server_factory(f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}")
    client = running.client()
    kms = running.server.encryption.current.kms[0]
    kms.write_ttl = 0.5
    running.call(kms.check())  # the plugin confirms key-1: same seed, now valid for 0.5 s
    create_secret(client, "a")
    first_seed = _stored(running, "a").encryptedDEKSource
    fake.healthz = "sealed"
    running.call(kms.check())  # a failed check does not extend the seed's life
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _create(client, "probe").status == 201:
        client.request("DELETE", f"{SECRETS}/probe")
        time.sleep(0.1)
    response = _create(client, "b")
    assert response.status == 500
    key_hash = "sha256:" + hashlib.sha256(b"key-1").hexdigest()
    assert f'encryptedDEKSource with keyID hash "{key_hash}" expired at' in response.json()["message"]
    fake.healthz = "ok"
    running.call(kms.check())  # same key ID, but the expired seed is replaced
    assert _create(client, "b").status == 201
    assert _stored(running, "b").keyID == "key-1"
    assert _stored(running, "b").encryptedDEKSource != first_seed
    got = client.request("GET", f"{SECRETS}/a").json()  # reads never expire
    assert base64.b64decode(got["data"]["password"]) == PLAINTEXT


def _metric(running, name: str, **labels: str) -> float:
    text = running.client().request("GET", "/metrics").body.decode()
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_envelope_and_transformation_metrics_are_scraped(svc_server_factory, tmp_path, plugin) -> None:
    fake, endpoint = plugin
    running = svc_server_factory(
        f"--encryption-provider-config={_kms_config(tmp_path, endpoint)}", "--watch-cache=false"
    )
    client = running.client()
    create_secret(client, "db")
    assert client.request("GET", f"{SECRETS}/db").status == 200
    key_hash = "sha256:" + hashlib.sha256(b"key-1").hexdigest()
    for kind in ("to_storage", "from_storage"):
        labels = {"resource": "secrets", "transformation_type": kind, "transformer_prefix": PREFIX.decode()}
        assert _metric(running, "apiserver_storage_transformation_operations_total", status="OK", **labels) >= 1
        assert _metric(running, "apiserver_envelope_encryption_key_id_hash_total", key_id_hash=key_hash,
                       transformation_type=kind, provider_name="vault") >= 1  # fmt: skip
    assert (
        _metric(running, "apiserver_storage_transformation_duration_seconds_count", transformation_type="to_storage")
        >= 1
    )
    encrypts = {"provider_name": "vault", "method_name": "/v2.KeyManagementService/Encrypt", "grpc_status_code": "OK"}
    assert _metric(running, "apiserver_envelope_encryption_kms_operations_latency_seconds_count", **encrypts) == 1
    assert _metric(running, "apiserver_envelope_encryption_dek_source_cache_size", provider_name="vault") == 1
    assert _metric(running, "apiserver_envelope_encryption_dek_cache_fill_percent") > 0
    assert _metric(running, "apiserver_storage_data_key_generation_duration_seconds_count") == 1
    status_hash = {"provider_name": "vault", "key_id_hash": key_hash}
    assert (
        _metric(running, "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds", **status_hash) > 0
    )
    fake.key_id = ""
    running.call(running.server.encryption.current.kms[0].check())
    invalid = {"provider_name": "vault", "error": "empty"}
    assert _metric(running, "apiserver_envelope_encryption_invalid_key_id_from_status_total", **invalid) == 1
