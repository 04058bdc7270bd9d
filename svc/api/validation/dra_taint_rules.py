"""DeviceTaintRule (resource.k8s.io v1alpha3 and v1beta2, served when their version is enabled), as
upstream's `ValidateDeviceTaintRule` and `ValidateDeviceTaintRuleUpdate`.

The selector's driver, pool and device are checked as a slice names them; the taint as a slice's
taints are, except that an update may keep an effect it does not change (upstream checks the effect
only when it is new or changed, so rules stored before an effect was withdrawn stay writable).
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.dra_names import dns_label_errors, driver_name_errors, pool_name_errors, taint_errors
from svc.api.validation.engine import Check, KindRules, UpdateCheck, lookup

_SELECTOR_NAMES: Final = (("driver", driver_name_errors), ("pool", pool_name_errors), ("device", dns_label_errors))


def _spec_errors(spec: Any, old_spec: Any) -> list[Any]:
    errors = []
    selector = lookup(spec, "deviceSelector")
    for key, check in _SELECTOR_NAMES:
        value = lookup(selector, key)
        if isinstance(value, str):
            errors += check(value, f"spec.deviceSelector.{key}")
    taint = lookup(spec, "taint")
    checked = taint_errors(taint, "spec.taint")
    if old_spec is not None and lookup(old_spec, "taint.effect") == lookup(taint, "effect"):
        checked = [error for error in checked if error.field != "spec.taint.effect"]
    return errors + checked


DEVICE_TAINT_RULE: Final = KindRules(
    create=(Check(lambda obj, base: _spec_errors(lookup(obj, "spec"), None)),),
    update=(UpdateCheck(lambda new, old, base: _spec_errors(lookup(new, "spec"), lookup(old, "spec"))),),
    revalidate_on_update=False,
)
