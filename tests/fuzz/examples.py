"""How many examples each fuzz test draws, and whether they are the same on every run.

Derandomized by default: Hypothesis derives each test's examples from the test itself, so CI replays
exactly the same requests on every run and cannot flake, while the counts keep them many and varied
(a fixed seed would do the same but pins one stream for the whole session; the example database is
off, so no run depends on an earlier one). A local hunt sets `SVC_FUZZ=explore`: fresh random
examples, ten times as many; a failure prints the `@reproduce_failure` blob to replay it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXPLORE = os.environ.get("SVC_FUZZ") == "explore"


def fuzz_settings(max_examples: int) -> settings:
    """Settings for a test that sends requests: no deadline (a live server on shared cores)."""
    return settings(
        max_examples=max_examples * (10 if EXPLORE else 1),
        deadline=None,
        derandomize=not EXPLORE,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        print_blob=True,
    )
