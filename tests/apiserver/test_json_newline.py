"""JSON bodies end with one newline, as upstream's `json.Encoder` writes them; pretty output and the
objects inside watch frames do not carry one."""

from __future__ import annotations

import itertools

import orjson
import pytest

PATH = "/api/v1/namespaces/default/configmaps"
_METADATA = "application/json;as=PartialObjectMetadata;g=meta.svc;v=v1"


@pytest.fixture
def api(svc_server):
    client = svc_server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"k": "v"}}
    assert client.request("POST", PATH, body=body).status == 201
    return client


def _one_line(body: bytes) -> bool:
    return body.endswith(b"}\n") and b"\n" not in body[:-1]


def test_an_object_ends_with_a_newline(api) -> None:
    assert _one_line(api.request("GET", f"{PATH}/one").body)


def test_a_list_ends_with_a_newline(api) -> None:
    assert _one_line(api.request("GET", PATH).body)


def test_a_created_object_ends_with_a_newline(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "two"}}
    assert _one_line(api.request("POST", PATH, body=body).body)


def test_a_status_error_ends_with_a_newline(api) -> None:
    response = api.request("GET", f"{PATH}/missing")
    assert response.status == 404
    assert _one_line(response.body)


def test_a_discovery_document_ends_with_a_newline(api) -> None:
    assert _one_line(api.request("GET", "/api/v1").body)


def test_pretty_output_has_no_trailing_newline(api) -> None:
    assert api.request("GET", f"{PATH}/one", params={"pretty": "true"}).body.endswith(b"\n}")


@pytest.mark.parametrize("accept", ["application/json", _METADATA])
def test_a_watch_frame_is_one_line_with_a_compact_object(api, accept) -> None:
    stream = api.stream(PATH, params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "2"}, accept=accept)
    try:
        line = next(itertools.islice(stream, 1))
    finally:
        stream.close()
    assert _one_line(line)
    assert orjson.loads(line)["object"]["metadata"]["name"] == "one"
