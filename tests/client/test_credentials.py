"""Inline kubeconfig credentials reach the TLS library without a file left anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from svc.client.kubeconfig import KubeconfigError, load_kubeconfig
from svc.client.rest import RestClient


@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> str:
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setenv("TMPDIR", str(directory))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return str(directory)


def _whoami(client: RestClient) -> str:
    review = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview", "metadata": {}}
    body = client.request("POST", "/apis/authentication.svc/v1/selfsubjectreviews", body=review).json()
    return body["status"]["userInfo"]["username"]


def test_inline_credentials_authenticate_and_leave_no_file(svc_server, private_tmp) -> None:
    config = load_kubeconfig(svc_server.kubeconfig)
    assert config.cert_data and config.key_data and not config.key_file
    client = RestClient(config)
    try:
        assert _whoami(client) == "svc-admin"
    finally:
        client.close()
    assert os.listdir(private_tmp) == []


def test_without_memfd_the_fallback_directory_is_removed(svc_server, private_tmp, monkeypatch) -> None:
    monkeypatch.delattr(os, "memfd_create")
    client = RestClient(load_kubeconfig(svc_server.kubeconfig))
    try:
        assert _whoami(client) == "svc-admin"
    finally:
        client.close()
    assert os.listdir(private_tmp) == []


def test_svcctl_with_an_inline_kubeconfig_leaves_no_file(svc_server, private_tmp) -> None:
    command = ["create", "quota", "q1", "--hard=pods=1", "-o", "name"]
    result = subprocess.run(
        [sys.executable, "-m", "svc.cli", "--svcconfig", str(svc_server.kubeconfig), *command],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": private_tmp},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "resourcequota/q1"
    assert os.listdir(private_tmp) == []


def test_inline_data_that_is_not_base64_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "config"
    path.write_text(
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
        "users: [{name: u, user: {client-key-data: '%%%'}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
    )
    with pytest.raises(KubeconfigError, match="client-key-data: illegal base64 data"):
        load_kubeconfig(path)
