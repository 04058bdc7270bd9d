"""API servers sharing one etcd compact it in turns, as upstream's: one compaction per round, claimed by a
compare-and-swap on the version of `compact_rev_key`; a server that stops is taken over by another."""

from __future__ import annotations

import asyncio

import pytest

from svc.storage import errors
from svc.storage.etcd.backend import EtcdBackend
from svc.testing.etcd import EtcdProcess


async def _writes(backend: EtcdBackend, prefix: str, count: int) -> int:
    for index in range(count):
        await backend.create(f"/{prefix}/{index}", b"x")
    return await backend.current_revision()


def test_one_server_compacts_per_round_and_another_takes_over(etcd_process: EtcdProcess) -> None:
    async def scenario() -> None:
        first, second = EtcdBackend([etcd_process.url]), EtcdBackend([etcd_process.url])
        await first.start()
        await second.start()
        try:
            # Round 1: the first server claims it (nothing to compact at bootstrap); the second learns it.
            first_round, first_seen = await first.compact_in_turn(0, 0)
            second_round, second_seen = await second.compact_in_turn(0, 0)
            assert (first_round, second_round) == (1, 1)
            old = await _writes(first, "a", 3)
            # Round 2: the first compacts to what it saw in round 1; the second only learns the round.
            first_round, _ = await first.compact_in_turn(first_round, first_seen)
            second_round, second_seen = await second.compact_in_turn(second_round, second_seen)
            assert (first_round, second_round) == (2, 2)
            with pytest.raises(errors.CompactedError):
                await second.range("/a/", "/a0", revision=first_seen - 1)
            assert (await second.range("/a/", "/a0", revision=old)).kvs
            # The first stops; in the next round the second claims the turn and compacts.
            await _writes(second, "b", 2)
            second_round, _ = await second.compact_in_turn(second_round, second_seen)
            assert second_round == 3
            with pytest.raises(errors.CompactedError):
                await first.range("/a/", "/a0", revision=second_seen - 1)
            stored = await first.get("compact_rev_key")
            assert stored is not None
            assert stored.value == str(second_seen).encode()
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())
