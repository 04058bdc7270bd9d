"""`/debug/api_priority_and_fairness/dump_*`: the state of the levels, queues and waiting requests
as comma-separated text with upstream's columns. They are non-resource paths, so the authorization
filter has already checked `get` on them."""

from __future__ import annotations

import time

from svc.apiserver.flowcontrol.controller import Controller

PREFIX = "/debug/api_priority_and_fairness/"
_LEVEL_COLUMNS = (
    "PriorityLevelName",
    "ActiveQueues",
    "IsIdle",
    "IsQuiescing",
    "WaitingRequests",
    "ExecutingRequests",
    "DispatchedRequests",
    "RejectedRequests",
    "TimedoutRequests",
    "CancelledRequests",
)
_QUEUE_COLUMNS = (
    "PriorityLevelName",
    "Index",
    "PendingRequests",
    "ExecutingRequests",
    "SeatsInUse",
    "NextDispatchR",
    "InitialSeatsSum",
    "MaxSeatsSum",
    "TotalWorkSum",
)
_REQUEST_COLUMNS = (
    "PriorityLevelName",
    "FlowSchemaName",
    "QueueIndex",
    "RequestIndexInQueue",
    "FlowDistingsher",
    "ArriveTime",
    "InitialSeats",
    "FinalSeats",
    "AdditionalLatency",
    "StartTime",
)
_DETAIL_COLUMNS = ("UserName", "Verb", "APIPath")


def _table(rows: list[tuple[object, ...]]) -> str:
    widths = [max(len(str(row[column])) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [f"{cell}," if index < len(row) - 1 else str(cell) for index, cell in enumerate(row)]
        lines.append(" ".join(cell.ljust(widths[index] + 1) for index, cell in enumerate(cells)).rstrip())
    return "\n".join(lines) + "\n"


def priority_levels(controller: Controller) -> str:
    rows: list[tuple[object, ...]] = [_LEVEL_COLUMNS]
    for name, level in sorted(controller.config.levels.items()):
        queueset = level.queueset
        if queueset is None:
            rows.append((name, "<none>", "<none>", "<none>", "<none>", level.executing, level.dispatched, 0, 0, 0))
            continue
        active = queueset.active_queues
        idle = queueset.seats_in_use == 0 and queueset.waiting_count == 0
        counts = queueset.counts
        rows.append(
            (name, active, str(idle).lower(), "false", queueset.waiting_count, queueset.executing,
             counts.dispatched, counts.rejected, counts.timed_out, counts.cancelled)
        )  # fmt: skip
    return _table(rows)


def queues(controller: Controller) -> str:
    rows: list[tuple[object, ...]] = [_QUEUE_COLUMNS]
    for name, level in sorted(controller.config.levels.items()):
        queueset = level.queueset
        if queueset is None:
            rows.append((name, "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>"))
            continue
        for queue in queueset.queues:
            seats = queue.seats_waiting
            rows.append(
                (name, queue.index, len(queue.waiting), queue.executing, queue.seats_in_use,
                 f"{queue.next_r:.8f}ss", seats, seats, seats)
            )  # fmt: skip
    return _table(rows)


def requests(controller: Controller, details: bool) -> str:
    rows: list[tuple[object, ...]] = [_REQUEST_COLUMNS + (_DETAIL_COLUMNS if details else ())]
    now_wall, now = time.time(), time.monotonic()
    for name, level in sorted(controller.config.levels.items()):
        if level.queueset is None:
            continue
        for queue in level.queueset.queues:
            for position, request in enumerate(queue.waiting):
                arrived = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now_wall - (now - request.arrived)))
                row: tuple[object, ...] = (
                    name, request.flow_schema, queue.index, position, request.distinguisher, arrived,
                    request.width, 0, "0s", "0001-01-01T00:00:00Z",
                )  # fmt: skip
                rows.append(row + (request.description if details else ()))
    return _table(rows)


def dump(controller: Controller, path: str, include_details: bool) -> str | None:
    """The text of a dump path, None for a path that names none."""
    name = path.removeprefix(PREFIX)
    if name == "dump_priority_levels":
        return priority_levels(controller)
    if name == "dump_queues":
        return queues(controller)
    if name == "dump_requests":
        return requests(controller, include_details)
    return None
