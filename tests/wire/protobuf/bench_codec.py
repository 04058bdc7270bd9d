"""Throughput of the protobuf codec on a 10,000-pod list (run by hand, not collected by pytest).

    .venv/bin/python -m tests.wire.protobuf.bench_codec [pods]

MB/s is given against both the protobuf size and the JSON size of the same list; CPU time, best
of five runs. orjson on the same list is printed as the yardstick of a C codec.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable

import orjson

from svc.wire.protobuf import decode_object, encode_list, encode_message, encode_object

from .samples import pod


def best_of(runs: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def paused(work: Callable[[], object]) -> object:
    """Decoding a large list makes many objects that all survive: the cycle collector rescans them."""
    gc.disable()
    try:
        return work()
    finally:
        gc.enable()


def main(count: int) -> None:
    items = [pod(i) for i in range(count)]
    listed = {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "1"}, "items": items}
    cached = {**listed, "items": [encode_message(item) for item in items]}
    body, text = encode_list(listed, "Pod"), orjson.dumps(listed)
    gc.freeze()  # as the server does after loading: a large live heap must not slow the collector
    rows = [
        ("protobuf encode_list", best_of(5, lambda: encode_list(listed, "Pod"))),
        ("protobuf encode_list, cached items", best_of(5, lambda: encode_list(cached, "Pod"))),
        ("protobuf encode_object x N", best_of(5, lambda: [encode_object(item) for item in items])),
        ("protobuf decode_object (list)", best_of(5, lambda: decode_object(body))),
        ("... with the collector paused", best_of(5, lambda: paused(lambda: decode_object(body)))),
        ("orjson dumps", best_of(5, lambda: orjson.dumps(listed))),
        ("orjson loads", best_of(5, lambda: orjson.loads(text))),
        ("... with the collector paused", best_of(5, lambda: paused(lambda: orjson.loads(text)))),
    ]
    print(f"{count} pods; JSON {len(text) / count:.0f} B/pod, protobuf {len(body) / count:.0f} B/pod")
    print(f"{'':36} {'s':>7} {'pods/s':>9} {'MB/s proto':>11} {'MB/s JSON':>10}")
    for name, seconds in rows:
        print(
            f"{name:36} {seconds:7.3f} {count / seconds:9.0f}"
            f" {len(body) / seconds / 1e6:11.1f} {len(text) / seconds / 1e6:10.1f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
