"""Encryption at rest through a running server: stored values hold no plaintext, every read path
decrypts, rotation by rewriting, undecryptable values are corrupt objects, reloads."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.kubectl_runner import Kubectl

SECRETS = "/api/v1/namespaces/default/secrets"
KEY1 = base64.b64encode(bytes(range(32))).decode()
KEY2 = base64.b64encode(bytes(range(1, 33))).decode()
PLAINTEXT = b"correct-horse-battery-staple"
KUBECTL = str(Path(__file__).resolve().parents[2] / ".tools" / "bin" / "kubectl")


def write_config(
    path: Path, providers: str, *, group: str = "apiserver.config.svc", resources: str = "[secrets]"
) -> Path:
    path.write_text(
        f"apiVersion: {group}/v1\nkind: EncryptionConfiguration\nresources:\n"
        f"- resources: {resources}\n  providers:\n{providers}"
    )
    return path


def aescbc(*names_and_keys: tuple[str, str]) -> str:
    keys = ", ".join(f"{{name: {name}, secret: {key}}}" for name, key in names_and_keys)
    return f"  - aescbc: {{keys: [{keys}]}}\n"


IDENTITY = "  - identity: {}\n"


def create_secret(client, name: str) -> dict:
    body = {"metadata": {"name": name}, "data": {"password": base64.b64encode(PLAINTEXT).decode()}}
    response = client.request("POST", SECRETS, body=body)
    assert response.status == 201, response.body
    return response.json()


def raw_value(running, key: str) -> bytes:
    kv = running.call(running.server.backend.get(running.server.options.store_prefix + key))
    assert kv is not None
    return kv.value


def sqlite_rows(running) -> list[bytes]:
    """Every value in the SQLite file, history included (empty when the server runs on etcd)."""
    path = running.data_dir / "state.db"
    if running.server.options.storage_backend != "sqlite" or not path.exists():
        return []
    with sqlite3.connect(path) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        values = []
        for table in tables:
            for row in connection.execute(f'SELECT * FROM "{table}"'):
                values.extend(
                    bytes(cell) if isinstance(cell, bytes | memoryview) else str(cell).encode() for cell in row
                )
        return values


@pytest.mark.parametrize(
    ("provider", "prefix"),
    [
        (aescbc(("k1", KEY1)), b"svc:enc:aescbc:v1:k1:"),
        (f"  - aesgcm: {{keys: [{{name: g1, secret: {KEY1}}}]}}\n", b"svc:enc:aesgcm:v1:g1:"),
        (f"  - secretbox: {{keys: [{{name: s1, secret: {KEY1}}}]}}\n", b"svc:enc:secretbox:v1:s1:"),
    ],
)
def test_stored_secrets_hold_no_plaintext(svc_server_factory, tmp_path, provider: str, prefix: bytes) -> None:
    config = write_config(tmp_path / "enc.yaml", provider)
    running = svc_server_factory(f"--encryption-provider-config={config}")
    client = running.client()
    create_secret(client, "db")
    stored = raw_value(running, "/secrets/default/db")
    assert stored.startswith(prefix)
    assert PLAINTEXT not in stored
    assert base64.b64encode(PLAINTEXT) not in stored
    assert not any(PLAINTEXT in row or base64.b64encode(PLAINTEXT) in row for row in sqlite_rows(running))
    got = client.request("GET", f"{SECRETS}/db").json()
    assert base64.b64decode(got["data"]["password"]) == PLAINTEXT


def test_resources_not_configured_stay_plain(svc_server_factory, tmp_path) -> None:
    running = svc_server_factory(
        f"--encryption-provider-config={write_config(tmp_path / 'enc.yaml', aescbc(('k1', KEY1)))}"
    )
    body = {"metadata": {"name": "cm"}, "data": {"k": "visible"}}
    assert running.client().request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    assert b"visible" in raw_value(running, "/configmaps/default/cm")


def test_list_and_watch_decrypt(svc_server_factory, tmp_path) -> None:
    running = svc_server_factory(
        f"--encryption-provider-config={write_config(tmp_path / 'enc.yaml', aescbc(('k1', KEY1)))}"
    )
    client = running.client()
    created = create_secret(client, "one")
    items = client.request("GET", SECRETS).json()["items"]
    assert [base64.b64decode(item["data"]["password"]) for item in items] == [PLAINTEXT]
    stream = client.stream(SECRETS, params={"watch": "1", "resourceVersion": "0"})
    try:
        event = json.loads(next(iter(stream)))
    finally:
        stream.close()
    assert event["type"] == "ADDED"
    assert event["object"]["metadata"]["name"] == "one"
    assert base64.b64decode(event["object"]["data"]["password"]) == PLAINTEXT
    assert event["object"]["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_watch_from_storage_decrypts(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)))
    running = svc_server_factory(f"--encryption-provider-config={config}", "--watch-cache=false")
    client = running.client()
    created = create_secret(client, "one")
    stream = client.stream(SECRETS, params={"watch": "1", "resourceVersion": "1"})
    try:
        event = json.loads(next(iter(stream)))
    finally:
        stream.close()
    assert event["object"]["metadata"]["uid"] == created["metadata"]["uid"]
    assert base64.b64decode(event["object"]["data"]["password"]) == PLAINTEXT


def test_plain_values_written_before_encryption_stay_readable_and_are_encrypted_on_rewrite(
    svc_server_factory, tmp_path
) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)) + IDENTITY)
    running = svc_server_factory(f"--encryption-provider-config={config}")
    client = running.client()
    plain = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {
                "name": "old",
                "namespace": "default",
                "uid": "0b3c2d7e-2d0c-4a35-8c1c-6a0f7f6c6f01",
                "creationTimestamp": "2026-01-01T00:00:00Z",
            },
            "type": "Opaque",
            "data": {"password": base64.b64encode(PLAINTEXT).decode()},
        }
    ).encode()
    running.call(running.server.backend.create(running.server.options.store_prefix + "/secrets/default/old", plain))
    current = client.request("GET", f"{SECRETS}/old").json()
    assert base64.b64decode(current["data"]["password"]) == PLAINTEXT
    assert client.request("PUT", f"{SECRETS}/old", body=current).status == 200
    assert raw_value(running, "/secrets/default/old").startswith(b"svc:enc:aescbc:v1:k1:")


def test_rotation_by_rewriting_after_a_reload(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)))
    running = svc_server_factory(
        f"--encryption-provider-config={config}", "--encryption-provider-config-automatic-reload"
    )
    client = running.client()
    create_secret(client, "db")
    write_config(config, aescbc(("k2", KEY2), ("k1", KEY1)))
    assert running.call(running.server.encryption.reload()) is True
    assert raw_value(running, "/secrets/default/db").startswith(b"svc:enc:aescbc:v1:k1:")
    current = client.request("GET", f"{SECRETS}/db").json()
    updated = client.request("PUT", f"{SECRETS}/db", body=current)
    assert updated.status == 200
    assert updated.json()["metadata"]["resourceVersion"] != current["metadata"]["resourceVersion"]
    assert raw_value(running, "/secrets/default/db").startswith(b"svc:enc:aescbc:v1:k2:")
    again = client.request("PUT", f"{SECRETS}/db", body=updated.json())
    assert again.json()["metadata"]["resourceVersion"] == updated.json()["metadata"]["resourceVersion"]


def test_a_bad_reload_keeps_the_old_configuration_and_is_counted(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)))
    running = svc_server_factory(
        f"--encryption-provider-config={config}", "--encryption-provider-config-automatic-reload"
    )
    config.write_text("kind: EncryptionConfiguration\n")
    assert running.call(running.server.encryption.reload()) is False
    client = running.client()
    create_secret(client, "db")
    assert raw_value(running, "/secrets/default/db").startswith(b"svc:enc:aescbc:v1:k1:")
    metrics = client.request("GET", "/metrics").body.decode()
    assert 'apiserver_encryption_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:' in metrics
    assert 'status="failure"} 1.0' in metrics


def test_kubectl_replace_re_encrypts_with_the_new_first_key(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)), group="apiserver.config.k8s.io")
    running = svc_server_factory(
        "--brand-profile=kubernetes",
        f"--encryption-provider-config={config}",
        "--encryption-provider-config-automatic-reload",
    )
    client = running.client()
    for name in ("a", "b"):
        create_secret(client, name)
    write_config(config, aescbc(("k2", KEY2), ("k1", KEY1)), group="apiserver.config.k8s.io")
    assert running.call(running.server.encryption.reload()) is True
    kubectl = Kubectl(KUBECTL, running.kubeconfig)
    listed = kubectl.run("get", "secrets", "-A", "-o", "json").stdout
    kubectl.run("replace", "-f", "-", stdin=listed)
    for name in ("a", "b"):
        assert raw_value(running, f"/secrets/default/{name}").startswith(b"k8s:enc:aescbc:v1:k2:")


def test_a_value_that_cannot_be_decrypted_is_a_corrupt_object(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)))
    running = svc_server_factory(
        f"--encryption-provider-config={config}", "--feature-gates=AllowUnsafeMalformedObjectDeletion=true"
    )
    client = running.client()
    running.call(
        running.server.backend.create(
            running.server.options.store_prefix + "/secrets/default/lost", b"svc:enc:aescbc:v1:gone:" + bytes(48)
        )
    )
    response = client.request("GET", f"{SECRETS}/lost")
    assert response.status == 500
    assert response.json()["message"].startswith(
        "Internal error occurred: StorageError: corrupt object, Code: 6, Key: "
    )
    assert "no matching prefix found" in response.json()["message"]
    unsafe = client.request(
        "DELETE", f"{SECRETS}/lost", body={"ignoreStoreReadErrorWithClusterBreakingPotential": True}
    )
    assert unsafe.status == 200
    assert client.request("GET", f"{SECRETS}/lost").status == 404


def test_wildcards_cover_custom_groups_and_core(svc_server_factory, tmp_path) -> None:
    config = write_config(tmp_path / "enc.yaml", aescbc(("k1", KEY1)), resources="['*.*']")
    running = svc_server_factory(f"--encryption-provider-config={config}")
    body = {"metadata": {"name": "cm"}, "data": {"k": "visible"}}
    assert running.client().request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    assert raw_value(running, "/configmaps/default/cm").startswith(b"svc:enc:aescbc:v1:k1:")
