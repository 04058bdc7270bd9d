"""`--clock=fake` for the controller manager and `svc-nodes`: a fake clock that follows the API server's.

The server's clock is moved by `/testing/v1/clock/advance`; the controllers here read the same time
through a `FakeClock` that advances whenever the server's does (streamed by
`GET /testing/v1/clock?watch=true`), so one advance in a test moves the stamps the server writes and
the schedules, lease expiries, TTLs and resyncs of the controllers, and the simulated nodes' Lease
renewals and pod run times alike, without sleeping. The stream is the test endpoints'
(system:masters only), so a daemon needs admin credentials under a fake clock, as the pytest plugin
gives it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from svc.client.aio import ApiError, AsyncRestClient
from svc.client.clock import FakeClock

log = logging.getLogger(__name__)

CLOCK_PATH = "/testing/v1/clock"
_RECONNECT = 0.5


CLOCK_CHOICES = ("real", "fake")
CLOCK_HELP = (
    "real or fake: follow the API server's fake clock (svc-apiserver --clock=fake; needs admin credentials for "
    "its /testing/v1/clock)"
)


def add_clock_flag(parser: argparse.ArgumentParser) -> None:
    """`--clock` of a daemon that can follow the server's clock (the option is `clock`: real or fake)."""
    parser.add_argument("--clock", choices=CLOCK_CHOICES, default="real", help=CLOCK_HELP + " (default real)")


class ClockError(Exception):
    """The server's clock cannot be followed (it is real, or the test endpoints are off)."""


@contextlib.asynccontextmanager
async def followed_clock(client: AsyncRestClient) -> AsyncIterator[FakeClock]:
    """A FakeClock at the server's current time, moved along with it while the context is open."""
    try:
        current = await client.get(CLOCK_PATH)
    except ApiError as error:
        raise ClockError(f"--clock=fake: cannot read the API server's clock at {CLOCK_PATH}: {error}") from None
    if current.get("clock") != "fake":
        raise ClockError("--clock=fake: the API server's clock is real; start it with --clock=fake")
    clock = FakeClock(start=float(current["now"]))
    following = asyncio.create_task(_follow(client, clock), name="followed-clock")
    try:
        yield clock
    finally:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following


async def _follow(client: AsyncRestClient, clock: FakeClock) -> None:
    """Advance `clock` to each time the server streams; reconnect (in real time) when the stream ends."""
    while True:
        try:
            async for line in client.watch(CLOCK_PATH, {}):
                ahead = float(line["now"]) - clock.now()
                if ahead > 0:
                    await clock.advance(ahead)
        except (ApiError, ConnectionError, OSError, TimeoutError) as error:
            log.warning("following the API server's clock: %s", error)
        await asyncio.sleep(_RECONNECT)
