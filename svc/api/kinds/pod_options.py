"""Pod specs validated with the options upstream derives from the feature gates and the stored object
(`svc.api.validation.gates`): every kind that carries a pod spec, on create and update. (The fields of
disabled features are dropped by `svc.api.kinds.disabled_fields`.)"""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Obj, Strategy
from svc.api.validation.engine import lookup
from svc.api.validation.gates import Gates, pod_options_for, using
from svc.machinery.field_errors import FieldError


def with_pod_options(base: Strategy, spec_path: str, gates: Gates) -> Strategy:
    """`base` whose validation runs with the write's pod validation options."""
    validate, validate_update = base.validate, base.validate_update
    on_create = pod_options_for(gates, None)  # the server's gates are fixed, and a create has no stored spec

    def checked(obj: Obj) -> list[FieldError]:
        with using(on_create):
            return validate(obj)

    def checked_update(new: Obj, old: Obj) -> list[FieldError]:
        with using(pod_options_for(gates, lookup(old, spec_path))):
            return validate_update(new, old)

    return dataclasses.replace(base, validate=checked, validate_update=checked_update)
