"""API Priority and Fairness and the max-in-flight limits (upstream's `util/flowcontrol` and the
`WithPriorityAndFairness`/`WithMaxInFlightLimit` filters), one job per module:

- `options`: the flags; `build`: wires the concern into a server;
- `bootstrap`: the mandatory and suggested objects as data; `ensurer`: creates and keeps them;
- `classifier`: request -> FlowSchema and flow; `routes`: that and all it implies, remembered per
  request shape; `dealer`: shuffle sharding;
- `width`: seats a request occupies; `allocation`: seats per priority level, with borrowing;
- `queueset`: queues and fair dispatch of one priority level; `controller`: the levels as the
  objects say; `retry_after`: the Retry-After of rejections;
- `filter` and `max_inflight`: the request filter in both modes; `debug`: the dump endpoints;
  `metrics`: the `apiserver_flowcontrol_*` series; `byte_rate`: `--max-connection-bytes-per-sec`.
"""
