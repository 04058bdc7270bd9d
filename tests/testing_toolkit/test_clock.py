"""The server's fake clock (`--clock=fake`): stamps and token windows follow `/testing/v1/clock/advance`."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import orjson
import pytest

from svc.apiserver.main import main as apiserver_main

PATH = "/api/v1/namespaces/default/configmaps"
START = "2030-01-01T00:00:00Z"
FAKE = ("--enable-test-endpoints", "--clock=fake", f"--fake-clock-start={START}")


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory(*FAKE)


@pytest.fixture
def api(server):
    return server.client()


def _create(api, name: str) -> dict:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    response = api.request("POST", PATH, body=body, params={"fieldManager": "tester"})
    assert response.status == 201, response.body
    return response.json()


def test_creation_timestamps_come_from_the_fake_clock(api) -> None:
    assert _create(api, "first")["metadata"]["creationTimestamp"] == START


def test_advance_moves_every_later_stamp(server, api) -> None:
    server.advance_clock(90)
    metadata = _create(api, "later")["metadata"]
    assert metadata["creationTimestamp"] == "2030-01-01T00:01:30Z"
    assert metadata["managedFields"][0]["time"] == "2030-01-01T00:01:30Z"


def test_deletion_timestamp_follows_the_fake_clock(server, api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
    assert api.request("POST", PATH, body=body).status == 201
    server.advance_clock(3600)
    deleted = api.request("DELETE", f"{PATH}/held").json()
    assert deleted["metadata"]["deletionTimestamp"] == "2030-01-01T01:00:00Z"


def test_the_clock_endpoint_reports_the_time(server, api) -> None:
    server.advance_clock(1.5)
    body = api.request("GET", "/testing/v1/clock").json()
    assert body == {"clock": "fake", "now": 1893456001.5, "time": "2030-01-01T00:00:01.500000Z"}


def _token(api, seconds: int) -> str:
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
    assert api.request("POST", "/api/v1/namespaces/default/serviceaccounts", body=account).status == 201
    request = {"apiVersion": "authentication.svc/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": seconds}}
    response = api.request("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", body=request)
    assert response.status == 201, response.body
    return response.json()["status"]["token"]


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_issued_tokens_are_stamped_with_the_fake_time(api) -> None:
    claims = _claims(_token(api, 3600))
    start = datetime.fromisoformat(START).timestamp()
    assert (claims["iat"], claims["exp"]) == (start, start + 3600)


def test_a_token_expires_when_the_fake_clock_passes_its_expiry(server, api) -> None:
    token = _token(api, 3600)
    review = {"apiVersion": "authentication.svc/v1", "kind": "TokenReview", "spec": {"token": token}}
    assert api.request("POST", "/apis/authentication.svc/v1/tokenreviews", body=review).json()["status"][
        "authenticated"
    ]
    server.advance_clock(3600 + 61)
    status = api.request("POST", "/apis/authentication.svc/v1/tokenreviews", body=review).json()["status"]
    assert not status.get("authenticated")
    assert "expired" in status["error"]


def test_advance_on_a_real_clock_is_400(svc_server_factory) -> None:
    api = svc_server_factory("--enable-test-endpoints").client()
    response = api.request("POST", "/testing/v1/clock/advance", params={"seconds": "1"})
    assert response.status == 400
    assert "--clock=fake" in response.json()["message"]


@pytest.mark.parametrize("seconds", ["-1", "soon", "nan", "inf", ""])
def test_a_bad_advance_is_400_and_leaves_the_clock(api, seconds: str) -> None:
    response = api.request("POST", "/testing/v1/clock/advance", params={"seconds": seconds})
    assert response.status == 400
    assert response.json()["reason"] == "BadRequest"
    assert api.request("GET", "/testing/v1/clock").json()["time"] == "2030-01-01T00:00:00.000000Z"


def test_non_masters_get_403_and_the_clock_stays(api) -> None:
    bob = {"Impersonate-User": "bob"}
    response = api.request("POST", "/testing/v1/clock/advance", params={"seconds": "1"}, headers=bob)
    assert response.status == 403
    assert response.json()["message"] == 'forbidden: User "bob" cannot post path "/testing/v1/clock/advance"'
    assert api.request("GET", "/testing/v1/clock", headers=bob).status == 403
    assert api.request("GET", "/testing/v1/clock").json()["now"] == datetime.fromisoformat(START).timestamp()


def test_a_second_server_in_the_process_keeps_the_real_time(svc_server_factory, api) -> None:
    real = svc_server_factory().client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "now"}}
    stamp = real.request("POST", PATH, body=body).json()["metadata"]["creationTimestamp"]
    assert datetime.fromisoformat(stamp).year == datetime.now(UTC).year


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--clock=fake"], "--clock=fake needs --enable-test-endpoints"),
        (["--clock=slow"], 'unknown clock "slow"'),
        (["--clock=fake", "--enable-test-endpoints", "--fake-clock-start=tomorrow"], "--fake-clock-start"),
        (["--fake-clock-start=2030-01-01T00:00:00Z"], "--fake-clock-start needs --clock=fake"),
    ],
)
def test_bad_clock_flags_stop_the_server_with_one_line(tmp_path, capsys, flags: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        apiserver_main(["--data-dir", str(tmp_path), *flags])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and message in err
    assert len(err.splitlines()) == 1
