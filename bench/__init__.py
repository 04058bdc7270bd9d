"""The benchmark suite: `python -m bench` drives a real `svc-apiserver` process and its anchors.

Speed and memory are measured here, never asserted in timed unit tests (DESIGN.md §7). Each run
puts the server beside etcd, a bare HTTP server on the same stack and raw SQLite commits, measured
on the same machine in the same run, so the numbers read as ratios rather than absolutes.
"""
