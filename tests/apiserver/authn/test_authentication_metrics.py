"""Authentication metrics under upstream's names: attempts and durations by result, users by kind."""

from __future__ import annotations

from tests.apiserver.authn.conftest import token_client


def _metrics(server) -> str:
    return server.client().request("GET", "/metrics").body.decode()


def test_successes_and_errors_are_counted_by_result(svc_server) -> None:
    assert token_client(svc_server, "bogus").request("GET", "/version").status == 401
    text = _metrics(svc_server)
    assert "# TYPE authentication_attempts counter" in text
    assert 'authentication_attempts{result="error"} 1' in text
    assert 'authentication_attempts{result="success"}' in text
    assert 'authentication_duration_seconds_bucket{le="0.001",result="success"}' in text
    assert 'authenticated_user_requests{username="other"}' in text
