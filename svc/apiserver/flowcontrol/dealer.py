"""Shuffle sharding: a flow's hash deals it a hand of `handSize` distinct queues out of `queues`
(upstream's `shufflesharding.Dealer`), so two flows rarely share a whole hand and one heavy flow
cannot fill every queue a light flow may use.

The hash is read as a mixed-radix number whose digits (radix `queues`, `queues`-1, ...) pick the
cards one by one from the shrinking deck; the same hash always deals the same hand.
"""

from __future__ import annotations

import hashlib
import math

MAX_HASH_BITS = 60
MEMO_SIZE = 4096


def flow_hash(schema: str, distinguisher: str) -> int:
    """64 bits of SHA-256 over the schema name and the flow distinguisher (little-endian, as upstream)."""
    digest = hashlib.sha256(schema.encode() + b"\x00" + distinguisher.encode()).digest()
    return int.from_bytes(digest[:8], "little")


def required_entropy_bits(queues: int, hand_size: int) -> int:
    return math.ceil(math.log2(math.perm(queues, hand_size))) if queues > 1 else 0


class Dealer:
    def __init__(self, queues: int, hand_size: int) -> None:
        if not 0 < hand_size <= queues:
            raise ValueError(f"handSize {hand_size} must be between 1 and queues {queues}")
        if required_entropy_bits(queues, hand_size) > MAX_HASH_BITS:
            raise ValueError(f"queues {queues} and handSize {hand_size} need more than {MAX_HASH_BITS} bits")
        self.queues = queues
        self.hand_size = hand_size
        self._hands: dict[int, tuple[int, ...]] = {}

    def deal(self, hash_value: int) -> tuple[int, ...]:
        """The hand of queue indices for `hash_value`, distinct, in dealing order (remembered per flow)."""
        hand = self._hands.get(hash_value)
        if hand is None:
            if len(self._hands) >= MEMO_SIZE:
                self._hands.clear()
            hand = self._hands[hash_value] = self._deal(hash_value)
        return hand

    def _deal(self, hash_value: int) -> tuple[int, ...]:
        digits = []
        for position in range(self.hand_size):
            hash_value, digit = divmod(hash_value, self.queues - position)
            digits.append(digit)
        hand = []
        for position, card in enumerate(digits):
            for earlier in reversed(digits[:position]):
                if card >= earlier:
                    card += 1
            hand.append(card)
        return tuple(hand)
