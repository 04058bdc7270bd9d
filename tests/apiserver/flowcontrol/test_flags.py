"""The request-limiting flags of spec 2 and their checks."""

from __future__ import annotations

import pytest

from svc.apiserver.options import parse_options


def test_defaults_are_upstreams() -> None:
    options = parse_options([]).flowcontrol
    assert options.enable_priority_and_fairness
    assert (options.max_requests_inflight, options.max_mutating_requests_inflight) == (400, 200)
    assert options.server_limit == 600 and options.max_connection_bytes_per_sec == 0


def test_flags_are_read() -> None:
    options = parse_options(
        ["--enable-priority-and-fairness=false", "--max-requests-inflight=0", "--max-mutating-requests-inflight=7"]
    ).flowcontrol
    assert not options.enable_priority_and_fairness
    assert (options.max_requests_inflight, options.max_mutating_requests_inflight) == (0, 7)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-requests-inflight=-1"], "--max-requests-inflight can not be negative value"),
        (["--max-connection-bytes-per-sec=-5"], "--max-connection-bytes-per-sec can not be negative value"),
        (
            ["--max-requests-inflight=0", "--max-mutating-requests-inflight=0"],
            "--max-requests-inflight plus --max-mutating-requests-inflight must be positive",
        ),
    ],
)
def test_bad_values_stop_the_server(args: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_options(args)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
