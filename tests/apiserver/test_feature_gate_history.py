"""Gates introduced in 1.36 (client-go's CA rotation and TLS cache GC, the node gates behind direct
WebSockets, init-container resize and resource health messages) are beta and on in 1.36 and did not
exist before: `--emulated-version=1.35` turns them off and refuses to set them, as upstream's
PreAlpha stage does."""

from __future__ import annotations

import pytest

from svc.apiserver.feature_gates import FeatureGateError, FeatureGates

INTRODUCED_IN_1_36 = (
    "ClientsAllowCARotation",
    "ClientsAllowTLSCacheGC",
    "ExtendWebSocketsToSvclet",
    "InPlacePodVerticalScalingInitContainers",
    "ResourceHealthStatusMessage",
)


@pytest.mark.parametrize("gate", INTRODUCED_IN_1_36)
def test_a_gate_from_1_36_is_on_now_and_off_when_emulating_1_35(gate: str) -> None:
    assert FeatureGates().enabled(gate)
    assert not FeatureGates(emulated=(1, 35), min_compatibility=(1, 34)).enabled(gate)


def test_a_gate_from_1_36_cannot_be_set_when_emulating_1_35() -> None:
    with pytest.raises(FeatureGateError) as caught:
        FeatureGates({"ClientsAllowCARotation": True}, emulated=(1, 35), min_compatibility=(1, 34))
    assert str(caught.value) == (
        "cannot set feature gate ClientsAllowCARotation to true, feature is PreAlpha at emulated version 1.35, "
        "min compatibility version 1.34"
    )
