"""API priority and fairness: FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1)."""

from __future__ import annotations

from typing import Final

from svc.api.defaults.walk import Obj, child, fill, fill_nil

MATCHING_PRECEDENCE: Final = 1000
NOMINAL_CONCURRENCY_SHARES: Final = 30
HAND_SIZE: Final = 8
QUEUES: Final = 64
QUEUE_LENGTH_LIMIT: Final = 50


def flow_schema(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is not None:
        fill(spec, "matchingPrecedence", MATCHING_PRECEDENCE)


def priority_level_configuration(obj: Obj) -> None:
    spec = child(obj, "spec")
    limited = child(spec, "limited")
    if limited is not None:
        fill_nil(limited, "nominalConcurrencyShares", NOMINAL_CONCURRENCY_SHARES)
        fill_nil(limited, "lendablePercent", 0)
        queuing = child(child(limited, "limitResponse"), "queuing")
        if queuing is not None:
            fill(queuing, "handSize", HAND_SIZE)
            fill(queuing, "queues", QUEUES)
            fill(queuing, "queueLengthLimit", QUEUE_LENGTH_LIMIT)
    exempt = child(spec, "exempt")
    if exempt is not None:
        fill_nil(exempt, "nominalConcurrencyShares", 0)
        fill_nil(exempt, "lendablePercent", 0)
