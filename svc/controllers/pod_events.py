"""The events upstream's pod control records for a controller that creates and deletes pods.

`controller.RealPodControl` reports each attempt on the owner: `SuccessfulCreate` "Created pod: <name>"
or `FailedCreate` "Error creating: <error>", and `SuccessfulDelete` "Deleted pod: <name>" or
`FailedDelete` "Error deleting: <error>". ReplicaSets, ReplicationControllers, Jobs and DaemonSets share it.
"""

from __future__ import annotations

from typing import Any

from svc.client.events import NORMAL, WARNING, EventRecorder

Obj = dict[str, Any]
_DONE = {"Create": "Created pod: ", "Delete": "Deleted pod: "}
_FAILED = {"Create": "Error creating: ", "Delete": "Error deleting: "}


async def record(recorder: EventRecorder, owner: Obj, kind: str, api_version: str, action: str, result: object) -> None:
    """`result` is the created (or deleted) pod, or the error the attempt raised."""
    if isinstance(result, BaseException):
        await recorder.event(owner, kind, api_version, WARNING, f"Failed{action}", f"{_FAILED[action]}{result}")
    elif isinstance(result, dict):
        name = (result.get("metadata") or {}).get("name", "")
        await recorder.event(owner, kind, api_version, NORMAL, f"Successful{action}", f"{_DONE[action]}{name}")
