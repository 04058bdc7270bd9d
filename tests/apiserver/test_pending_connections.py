"""The bound on connections waiting for headers sheds the longest waiting first."""

from __future__ import annotations

from svc.apiserver.pending_connections import PendingConnections


class Connection:
    def __init__(self, name: str) -> None:
        self.name = name
        self.shed_count = 0

    def shed(self) -> None:
        self.shed_count += 1


def test_past_the_limit_the_oldest_waiting_connection_is_shed() -> None:
    pending = PendingConnections(2)
    first, second, third = Connection("1"), Connection("2"), Connection("3")
    for connection in (first, second, third):
        pending.add(connection)
    assert [first.shed_count, second.shed_count, third.shed_count] == [1, 0, 0]
    assert len(pending) == 2


def test_a_connection_that_sent_its_headers_no_longer_counts() -> None:
    pending = PendingConnections(2)
    first, second, third = Connection("1"), Connection("2"), Connection("3")
    pending.add(first)
    pending.add(second)
    pending.discard(first)
    pending.add(third)
    assert [first.shed_count, second.shed_count, third.shed_count] == [0, 0, 0]
    assert len(pending) == 2
