"""`--egress-selector-config-file`: the cluster selection's HTTP CONNECT proxy, and bad files refused."""

from __future__ import annotations

import argparse

import pytest

from svc.apiserver.proxy.egress import EgressOptions, from_args

_HEAD = "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n"


def _load(tmp_path, text: str) -> EgressOptions:
    path = tmp_path / "egress.yaml"
    path.write_text(text)
    return from_args(argparse.Namespace(egress_selector_config_file=str(path)))


def test_the_cluster_selection_names_the_connect_proxy(tmp_path):
    text = _HEAD + (
        "- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n"
        "    transport:\n      tcp:\n        url: http://127.0.0.1:8131\n"
    )
    assert _load(tmp_path, text).cluster_proxy == ("127.0.0.1", 8131)


def test_a_direct_cluster_selection_dials_directly(tmp_path):
    text = _HEAD + "- name: cluster\n  connection:\n    proxyProtocol: Direct\n"
    assert _load(tmp_path, text).cluster_proxy is None


def test_an_unsupported_proxy_protocol_is_refused(tmp_path):
    text = _HEAD + "- name: cluster\n  connection:\n    proxyProtocol: GRPC\n"
    with pytest.raises(ValueError, match="proxyProtocol: Unsupported value"):
        _load(tmp_path, text)


def test_a_file_of_another_kind_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not an EgressSelectorConfiguration"):
        _load(tmp_path, "apiVersion: v1\nkind: ConfigMap\n")
