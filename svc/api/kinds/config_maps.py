"""ConfigMaps: an immutable ConfigMap's `data` and `binaryData` are compared as upstream compares them,
with `reflect.DeepEqual` on its Go maps: a map sent as `{}` is not the nil map a ConfigMap stored without
it reads back as, so re-sending an immutable ConfigMap with `data: {}` or `binaryData: {}` is a change."""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Strategy


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, nil_distinct_maps=("data", "binaryData"))
