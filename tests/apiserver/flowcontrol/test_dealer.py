"""Shuffle sharding deals each flow a fixed hand of distinct queues."""

from __future__ import annotations

import pytest

from svc.apiserver.flowcontrol.dealer import Dealer, flow_hash


def test_the_same_flow_always_gets_the_same_hand() -> None:
    dealer = Dealer(128, 6)
    value = flow_hash("global-default", "alice")
    assert dealer.deal(value) == dealer.deal(value) == Dealer(128, 6).deal(flow_hash("global-default", "alice"))


def test_hands_hold_distinct_queues_in_range() -> None:
    dealer = Dealer(16, 4)
    for user in range(200):
        hand = dealer.deal(flow_hash("schema", f"user-{user}"))
        assert len(set(hand)) == 4 and all(0 <= card < 16 for card in hand)


def test_the_hash_is_read_as_mixed_radix_digits() -> None:
    # 3 + 4 x 2: first card 3 (of 4), then digit 2 of the 3 left (0, 1, 2 -> skipping 3 is not needed) = 2.
    assert Dealer(4, 2).deal(3 + 4 * 2) == (3, 2)
    # digit 0 then 0: the second card skips the first one taken.
    assert Dealer(4, 2).deal(0) == (0, 1)


def test_different_flows_mostly_get_different_hands() -> None:
    dealer = Dealer(128, 6)
    hands = {tuple(sorted(dealer.deal(flow_hash("s", f"u{n}")))) for n in range(100)}
    assert len(hands) == 100


def test_a_hand_larger_than_the_deck_is_refused() -> None:
    with pytest.raises(ValueError, match="handSize"):
        Dealer(4, 5)
