"""One priority level's queues: admission, rejection and fair dispatch (no server)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from svc.apiserver.flowcontrol.queueset import Outcome, QueueSet, Queuing, Request


def in_loop(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Waiters are futures of the running loop: run the test in one."""

    @functools.wraps(test)
    def run() -> None:
        asyncio.run(test())

    return run


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _request(flow: int, width: int = 1, schema: str = "s") -> Request:
    return Request(schema, str(flow), flow, width, 0.0)


@in_loop
async def test_a_reject_level_runs_up_to_its_limit_then_refuses() -> None:
    queueset = QueueSet("level", 2, None, Clock())
    assert queueset.offer(_request(1)) is Outcome.DISPATCHED
    assert queueset.offer(_request(2)) is Outcome.DISPATCHED
    assert queueset.offer(_request(3)) is Outcome.CONCURRENCY_LIMIT
    assert queueset.counts.rejected == 1


@in_loop
async def test_a_full_queue_refuses() -> None:
    queueset = QueueSet("level", 1, Queuing(queues=1, hand_size=1, queue_length_limit=1), Clock())
    assert queueset.offer(_request(1)) is Outcome.DISPATCHED
    assert queueset.offer(_request(1)) is None
    assert queueset.offer(_request(1)) is Outcome.QUEUE_FULL


@in_loop
async def test_dispatch_alternates_between_flows_rather_than_serving_the_heavy_one_first() -> None:
    clock = Clock()
    queueset = QueueSet("level", 1, Queuing(queues=2, hand_size=1, queue_length_limit=50), clock)
    # flows 0 and 1 land in queues 0 and 1 (hand of one card: the hash modulo 2)
    running = _request(0)
    assert queueset.offer(running) is Outcome.DISPATCHED
    heavy = [_request(0) for _ in range(5)]
    light = [_request(1) for _ in range(2)]
    for request in heavy + light:
        assert queueset.offer(request) is None
    order = []
    current = running
    for _ in range(7):
        clock.now += 1.0
        queueset.finish(current)
        current = next(r for r in heavy + light if r.waiter is not None and r.waiter.done() and r not in order)
        order.append(current)
    served = ["light" if request in light else "heavy" for request in order]
    assert served[:4].count("light") == 2


@in_loop
async def test_a_wide_request_waits_until_enough_seats_are_free() -> None:
    queueset = QueueSet("level", 4, Queuing(queues=1, hand_size=1, queue_length_limit=10), Clock())
    first = _request(1, width=3)
    assert queueset.offer(first) is Outcome.DISPATCHED
    wide = _request(1, width=2)
    assert queueset.offer(wide) is None
    queueset.finish(first)
    assert wide.waiter is not None and wide.waiter.done() and queueset.seats_in_use == 2


@in_loop
async def test_a_withdrawn_request_leaves_its_queue() -> None:
    queueset = QueueSet("level", 1, Queuing(queues=1, hand_size=1, queue_length_limit=10), Clock())
    queueset.offer(_request(1))
    waiting = _request(1)
    queueset.offer(waiting)
    assert queueset.withdraw(waiting, timed_out=True)
    assert queueset.waiting_count == 0 and queueset.counts.timed_out == 1


@in_loop
async def test_a_request_started_at_once_counts_in_its_queue_so_the_next_one_picks_another() -> None:
    queueset = QueueSet("level", 4, Queuing(queues=2, hand_size=2, queue_length_limit=10), Clock())
    first = queueset.start_at_once(7, 1)
    second = queueset.start_at_once(7, 1)
    assert first is not None and second is not None
    assert first[0] is not second[0]
    assert queueset.seats_in_use == 2 and queueset.active_queues == 2 and queueset.counts.dispatched == 2


@in_loop
async def test_start_at_once_declines_when_the_seats_are_taken_or_someone_waits() -> None:
    queueset = QueueSet("level", 1, Queuing(queues=1, hand_size=1, queue_length_limit=10), Clock())
    running = queueset.start_at_once(1, 1)
    assert running is not None
    assert queueset.start_at_once(1, 1) is None
    waiting = _request(1)
    assert queueset.offer(waiting) is None
    queueset.end(running[0], 1, running[1])
    assert waiting.waiter is not None and waiting.waiter.done()
    assert queueset.start_at_once(1, 1) is None  # the waiter, now running, holds the one seat


@in_loop
async def test_a_request_ending_early_gives_back_the_unused_part_of_its_charge() -> None:
    clock = Clock()
    queueset = QueueSet("level", 2, Queuing(queues=1, hand_size=1, queue_length_limit=10), clock)
    running = queueset.start_at_once(1, 2)
    assert running is not None
    queue, started = running
    assert queue is not None and queue.next_r == 2 * 60.0
    clock.now += 1.0
    queueset.end(queue, 2, started)
    assert queue.next_r == 2 * 1.0 and queueset.active_queues == 0
