"""The queues of one limited priority level, and fair dispatch among them (upstream's `queueset`).

A request needs `width` seats. It runs at once when the level has them free and nobody waits;
otherwise a `Reject` level refuses it, and a `Queue` level puts it on the shortest (fewest seats
waiting and running) of the queues its flow's hand deals, refusing it when that queue already holds
`queueLengthLimit` requests.

Dispatch is fair queuing by virtual time: the level's virtual clock R advances, in real seconds,
at the rate of the seats in use (at most the limit) divided by the queues that have work. Each queue
carries the R at which its next request may start; dispatching a request moves it on by `width` x
the nominal service time `G`, and the request's end corrects it by what it actually took. The
queue with the smallest next-start R goes first; when its head does not fit in the free seats,
dispatch waits for seats rather than letting narrower requests overtake it. A queue that falls
idle restarts at the current R, so no flow banks credit while it is away.
"""

from __future__ import annotations

import asyncio
import operator
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from svc.apiserver.flowcontrol.dealer import MEMO_SIZE, Dealer

SERVICE_TIME = 60.0  # G: nominal seconds a request is charged for when it is dispatched
_SEATS_IN_USE = operator.attrgetter("seats_in_use")


class Outcome(Enum):
    DISPATCHED = "dispatched"
    QUEUE_FULL = "queue-full"
    CONCURRENCY_LIMIT = "concurrency-limit"
    TIME_OUT = "time-out"


@dataclass(frozen=True)
class Queuing:
    queues: int
    hand_size: int
    queue_length_limit: int


@dataclass(eq=False, slots=True)
class Request:
    flow_schema: str
    distinguisher: str
    flow: int
    width: int
    arrived: float
    description: tuple[str, ...] = ()
    """User, verb and path, for `dump_requests`."""
    queue: Queue | None = None
    started: float = 0.0
    running: bool = False
    waiter: asyncio.Future[None] | None = None


@dataclass(eq=False, slots=True)
class Queue:
    index: int
    waiting: deque[Request] = field(default_factory=deque)
    executing: int = 0
    seats_in_use: int = 0
    next_r: float = 0.0
    seats_waiting: int = 0

    def busy(self) -> bool:
        return bool(self.waiting) or self.executing > 0


@dataclass(slots=True)
class Counts:
    dispatched: int = 0
    rejected: int = 0
    timed_out: int = 0
    cancelled: int = 0


class QueueSet:
    def __init__(
        self, name: str, limit: int, queuing: Queuing | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.limit = limit
        self.clock = clock
        self.queuing = queuing
        self.queues = [Queue(index) for index in range(queuing.queues)] if queuing else []
        self.dealer = Dealer(queuing.queues, queuing.hand_size) if queuing else None
        self._hands: dict[int, tuple[Queue, ...]] = {}
        self.seats_in_use = 0
        self.executing = 0
        self.waiting_count = 0
        self.waiting_seats = 0
        self.active_queues = 0
        """Queues with requests waiting or running: the divisor of virtual time's rate."""
        self.counts = Counts()
        self.peak_demand = 0
        self._r = 0.0
        self._r_updated = clock()

    # -- configuration -----------------------------------------------------------------------
    def reconfigure(self, limit: int, queuing: Queuing | None) -> None:
        """New seats or queues; requests already waiting stay in their queues until dispatched."""
        self.limit = limit
        if queuing != self.queuing:
            self.queuing = queuing
            self.dealer = Dealer(queuing.queues, queuing.hand_size) if queuing else None
            self._hands = {}
            count = queuing.queues if queuing else 0
            while len(self.queues) < count:
                self.queues.append(Queue(len(self.queues)))
        self._dispatch()

    # -- virtual time ------------------------------------------------------------------------
    def _advance(self) -> float:
        """Move the virtual clock R up to now, at the rate of the interval just ended; now."""
        now = self.clock()
        if self.active_queues:
            in_use, limit = self.seats_in_use, self.limit
            self._r += (now - self._r_updated) * (in_use if in_use < limit else limit) / self.active_queues
        self._r_updated = now
        return now

    def _hand(self, flow: int) -> tuple[Queue, ...]:
        """The queues the dealer deals `flow` (remembered per flow)."""
        hand = self._hands.get(flow)
        if hand is None:
            assert self.dealer is not None
            if len(self._hands) >= MEMO_SIZE:
                self._hands.clear()
            hand = self._hands[flow] = tuple(self.queues[index] for index in self.dealer.deal(flow))
        return hand

    # -- admission ---------------------------------------------------------------------------
    def _fits(self, width: int) -> bool:
        return self.seats_in_use == 0 or self.seats_in_use + width <= self.limit

    def _note_demand(self) -> None:
        self.peak_demand = max(self.peak_demand, self.seats_in_use + self.waiting_seats)

    def offer(self, request: Request) -> Outcome | None:
        """Run the request now (DISPATCHED), refuse it (QUEUE_FULL, CONCURRENCY_LIMIT), or queue it
        (None: wait on `request.waiter`)."""
        if request.width > self.limit:
            request.width = max(1, self.limit)
        now = self._advance()
        if self.dealer is None:
            if self._fits(request.width):
                self._start(request, now)
                self._note_demand()
                return Outcome.DISPATCHED
            self.peak_demand = max(self.peak_demand, self.seats_in_use + request.width)
            self.counts.rejected += 1
            return Outcome.CONCURRENCY_LIMIT
        assert self.queuing is not None
        queue = self._shortest(self._hand(request.flow))
        if len(queue.waiting) >= self.queuing.queue_length_limit:
            self.counts.rejected += 1
            return Outcome.QUEUE_FULL
        if not queue.busy():
            queue.next_r = max(queue.next_r, self._r)
            self.active_queues += 1
        request.queue = queue
        if not self.waiting_count and self._fits(request.width):
            # nobody waits anywhere: the request would be dispatched at once, without a waiter
            self._start(request, now)
            self._note_demand()
            return Outcome.DISPATCHED
        queue.waiting.append(request)
        queue.seats_waiting += request.width
        self.waiting_count += 1
        self.waiting_seats += request.width
        request.waiter = asyncio.get_running_loop().create_future()
        self._dispatch()
        self._note_demand()
        if request.waiter.done():
            return Outcome.DISPATCHED
        return None

    def _shortest(self, hand: tuple[Queue, ...]) -> Queue:
        """The queue of the hand with the fewest seats waiting and running (the first of equals)."""
        best = hand[0]
        best_work = best.seats_waiting + best.seats_in_use
        for queue in hand[1:]:
            work = queue.seats_waiting + queue.seats_in_use
            if work < best_work:
                best, best_work = queue, work
        return best

    def withdraw(self, request: Request, *, timed_out: bool) -> bool:
        """Take a waiting request out of its queue (its wait ended); False when it was dispatched meanwhile."""
        queue = request.queue
        if queue is None or request not in queue.waiting:
            return False
        self._advance()
        queue.waiting.remove(request)
        queue.seats_waiting -= request.width
        if not queue.busy():
            self.active_queues -= 1
        self.waiting_count -= 1
        self.waiting_seats -= request.width
        if timed_out:
            self.counts.timed_out += 1
            self.counts.rejected += 1
        else:
            self.counts.cancelled += 1
        self._dispatch()
        return True

    def _start(self, request: Request, now: float) -> None:
        request.started = now
        request.running = True
        self.seats_in_use += request.width
        self.executing += 1
        self.counts.dispatched += 1
        queue = request.queue
        if queue is not None:
            queue.executing += 1
            queue.seats_in_use += request.width
            queue.next_r += request.width * SERVICE_TIME

    def _dispatch(self) -> None:
        while self.waiting_count:
            queue = min((q for q in self.queues if q.waiting), key=lambda q: q.next_r)
            head = queue.waiting[0]
            if not self._fits(head.width):
                return
            queue.waiting.popleft()
            queue.seats_waiting -= head.width
            self.waiting_count -= 1
            self.waiting_seats -= head.width
            self._start(head, self.clock())
            if head.waiter is not None and not head.waiter.done():
                head.waiter.set_result(None)

    def finish(self, request: Request) -> None:
        """The request ended (or a watch finished starting): free its seats, correct its queue's R."""
        if request.running:
            request.running = False
            self.end(request.queue, request.width, request.started)

    # -- the common case, without a Request ----------------------------------------------------
    def start_at_once(self, flow: int, width: int) -> tuple[Queue | None, float] | None:
        """What `offer` does when nobody waits and the seats are free, in one step: the request runs
        now, in the returned queue (None on a level without queues) from the returned time. None
        when it does not fit (or is wider than the limit): then `offer` decides."""
        in_use = self.seats_in_use
        if self.waiting_count or width > self.limit or (in_use and in_use + width > self.limit):
            return None
        now = self._advance()
        queue = None
        if self.dealer is not None:
            # nobody waits: a queue's work is its seats in use, and min keeps the first of equals
            hand = self._hand(flow)
            queue = hand[0]
            if queue.seats_in_use:
                queue = min(hand, key=_SEATS_IN_USE)
            if not queue.executing:
                if queue.next_r < self._r:
                    queue.next_r = self._r
                self.active_queues += 1
            queue.executing += 1
            queue.seats_in_use += width
            queue.next_r += width * SERVICE_TIME
        in_use += width
        self.seats_in_use = in_use
        self.executing += 1
        self.counts.dispatched += 1
        if in_use > self.peak_demand:
            self.peak_demand = in_use
        return queue, now

    def end(self, queue: Queue | None, width: int, started: float) -> None:
        """A request started at `started` in `queue` with `width` seats ended: free its seats, correct
        its queue's R by what it actually took, and dispatch whoever waits."""
        now = self._advance()
        self.executing -= 1
        self.seats_in_use -= width
        if queue is not None:
            queue.executing -= 1
            queue.seats_in_use -= width
            unused = width * SERVICE_TIME - width * (now - started)
            if unused > 0.0:
                queue.next_r -= unused
            if not queue.executing and not queue.waiting:
                self.active_queues -= 1
        if self.waiting_count:
            self._dispatch()

    # -- reporting ---------------------------------------------------------------------------
    def take_peak_demand(self) -> int:
        """Seats demanded at most since the last call (running plus waiting); restarts the window."""
        peak = max(self.peak_demand, self.seats_in_use)
        self.peak_demand = self.seats_in_use
        return peak
