"""Request bodies, request lines and headers are limited as upstream's Go server limits them."""

from __future__ import annotations

import json
import time

import pytest

from tests.apiserver.raw_http import connect, exchange, read_response

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
LIMIT = 3 * 1024 * 1024
TOO_LARGE = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Request entity too large: limit is 3145728",
    "reason": "RequestEntityTooLarge",
    "code": 413,
}


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _configmap(name: str, size: int) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "x" * size}}


def _names(api) -> list[str]:
    return [item["metadata"]["name"] for item in api.request("GET", CONFIGMAPS).json()["items"]]


def test_create_with_a_body_over_3_mib_is_413(api) -> None:
    response = api.request("POST", CONFIGMAPS, body=_configmap("big", LIMIT))
    assert response.status == 413
    assert response.json() == TOO_LARGE
    assert _names(api) == []


def test_update_with_a_body_over_3_mib_is_413(api) -> None:
    assert api.request("POST", CONFIGMAPS, body=_configmap("c", 1)).status == 201
    response = api.request("PUT", f"{CONFIGMAPS}/c", body=_configmap("c", LIMIT))
    assert response.status == 413
    assert response.json() == TOO_LARGE
    assert api.request("GET", f"{CONFIGMAPS}/c").json()["data"] == {"a": "x"}


def test_patch_with_a_body_over_3_mib_is_413(api) -> None:
    assert api.request("POST", CONFIGMAPS, body=_configmap("c", 1)).status == 201
    patch = {"data": {"a": "y" * LIMIT}}
    response = api.request("PATCH", f"{CONFIGMAPS}/c", body=patch, content_type="application/merge-patch+json")
    assert response.status == 413
    assert response.json() == TOO_LARGE
    assert api.request("GET", f"{CONFIGMAPS}/c").json()["data"] == {"a": "x"}


def test_a_body_just_under_the_limit_is_read(api) -> None:
    """Under the limit the body reaches decoding (here: not JSON, so the decoder's 400)."""
    response = api.request("POST", CONFIGMAPS, body=b"{" * LIMIT)
    assert response.status == 400
    assert response.json()["reason"] == "BadRequest"


def test_a_chunked_body_over_3_mib_is_413(svc_server) -> None:
    head = (
        f"POST {CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"x" * 65536
    with connect(svc_server, timeout=30) as tls:
        tls.sendall(head)
        for _ in range(LIMIT // len(chunk) + 2):
            tls.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        tls.sendall(b"0\r\n\r\n")
        status, _, body = read_response(tls)
    assert status == 413
    assert body == TOO_LARGE


def test_a_broken_chunked_body_is_a_400_status(svc_server) -> None:
    data = (
        f"POST {CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\nzz\r\n'
    ).encode()
    status, _, body = exchange(svc_server, data)
    assert status == 400
    assert body["kind"] == "Status"
    assert body["reason"] == "BadRequest"


def test_a_request_line_over_8_kib_is_served(api) -> None:
    """kubectl with a selector of hundreds of values sends such lines; Go takes up to 1 MiB."""
    selector = "app in (" + ",".join(f"value-{index}" for index in range(1500)) + ")"
    response = api.request("GET", CONFIGMAPS, params={"labelSelector": selector})
    assert len(selector) > 8192
    assert response.status == 200
    assert response.json()["kind"] == "ConfigMapList"


def test_a_64_kib_header_is_served(api) -> None:
    response = api.request("GET", CONFIGMAPS, headers={"X-Large": "y" * 65536})
    assert response.status == 200


def test_many_headers_are_served(api) -> None:
    headers = {f"X-Header-{index}": "v" for index in range(500)}
    assert api.request("GET", CONFIGMAPS, headers=headers).status == 200


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(
            b"GET /api HTTP/1.1\r\nHost: x\r\nX-Large: " + b"y" * ((1 << 20) + 8192) + b"\r\n\r\n", id="one-header"
        ),
        pytest.param(
            b"GET /api HTTP/1.1\r\nHost: x\r\n"
            + b"".join(b"X-H%d: %s\r\n" % (index, b"y" * 1000) for index in range(1100))
            + b"\r\n",
            id="many-headers",
        ),
        pytest.param(b"GET /api?" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n", id="request-line"),
    ],
)
def test_headers_over_1_mib_are_431_with_a_status(svc_server, data: bytes) -> None:
    status, headers, body = exchange(svc_server, data)
    assert status == 431
    assert headers["Content-Type"] == "application/json"
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Request Header Fields Too Large",
        "code": 431,
    }


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"GARBAGE\r\n\r\n", id="malformed-request-line"),
        pytest.param(b"G\x01T / HTTP/1.1\r\nHost: x\r\n\r\n", id="bad-method"),
        pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", id="header-without-colon"),
        pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", id="nul-in-header"),
        pytest.param(b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", id="bad-version"),
    ],
)
def test_malformed_requests_get_a_400_status(svc_server, data: bytes, caplog: pytest.LogCaptureFixture) -> None:
    status, headers, body = exchange(svc_server, data)
    assert status == 400
    assert headers["Content-Type"] == "application/json"
    assert body["kind"] == "Status"
    assert body["reason"] == "BadRequest"
    assert body["code"] == 400
    assert json.dumps(body)
    assert not [record for record in caplog.records if record.exc_info]


def test_headers_of_almost_1_mib_are_served(svc_server) -> None:
    data = b"GET /api HTTP/1.1\r\nHost: x\r\nX-Large: " + b"y" * ((1 << 20) - 100) + b"\r\n\r\n"
    status, _, body = exchange(svc_server, data)
    assert status == 200
    assert body["kind"] == "APIVersions"


def test_a_client_leaving_mid_body_is_not_logged_as_a_fault(svc_server, caplog: pytest.LogCaptureFixture) -> None:
    head = f"POST {CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    with connect(svc_server) as tls:
        tls.sendall(head.encode() + b'{"metadata":')
        time.sleep(0.3)
    time.sleep(0.5)
    assert svc_server.client().request("GET", CONFIGMAPS).status == 200
    assert not [record for record in caplog.records if record.exc_info]
