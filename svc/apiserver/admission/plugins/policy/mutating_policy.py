"""A MutatingAdmissionPolicy compiled, and applying its mutations to one object.

Mutations run in order, each on the object as the ones before left it (a fresh activation each, so
`object` and `variables` see the latest object). An `ApplyConfiguration` mutation's expression
yields an `Object{...}` that is merged into the object with server-side apply's structured merge
(granular maps key by key, associative lists item by item, the configuration's values at leaves);
a `JSONPatch` mutation's expression yields `JSONPatch{op, path, value, from}` operations applied in
order (RFC 6902).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import jsonpatch

from svc.apiserver.admission.matching import MatchCriteria
from svc.apiserver.admission.plugins.policy.expressions import (
    MUTATING_DECLARED,
    OBJECT,
    EvaluationError,
    Expression,
    PolicyExpressions,
)
from svc.machinery.apply.shapes import Shape
from svc.machinery.apply.typed import TypedError, merge
from svc.machinery.cel.cost import CostExceeded

APPLY_CONFIGURATION = "ApplyConfiguration"
JSON_PATCH = "JSONPatch"
_SOURCE_FIELDS = {APPLY_CONFIGURATION: "applyConfiguration", JSON_PATCH: "jsonPatch"}


class MutationError(Exception):
    """A mutation that could not be evaluated or applied; the failurePolicy decides."""


class MutatingPolicy:
    def __init__(self, policy: Mapping[str, Any]) -> None:
        spec = policy.get("spec") or {}
        self.name: str = (policy.get("metadata") or {}).get("name", "")
        self.spec = spec
        self.fail = spec.get("failurePolicy", "Fail") != "Ignore"
        self.reinvoke = spec.get("reinvocationPolicy") == "IfNeeded"
        self.criteria = MatchCriteria.from_match_resources(spec.get("matchConstraints"))
        self.expressions = PolicyExpressions(spec, MUTATING_DECLARED)
        self.mutations: list[tuple[str, Expression]] = []
        for mutation in spec.get("mutations") or ():
            patch_type = mutation.get("patchType", "")
            source = (
                mutation.get("applyConfiguration") if patch_type == APPLY_CONFIGURATION else mutation.get("jsonPatch")
            )
            self.mutations.append((patch_type, self.expressions.compile(str((source or {}).get("expression", "")))))

    def mutate(self, values: Mapping[str, Any], obj: dict[str, Any], shape: Shape) -> dict[str, Any]:
        """The object after every mutation (`obj` itself is left alone); raises `MutationError`."""
        act = self.expressions.activation({**values, OBJECT: obj})
        try:
            if not self.expressions.matches(act):
                return obj
        except EvaluationError as err:
            raise MutationError(str(err)) from err
        for patch_type, expression in self.mutations:
            act = self.expressions.activation({**values, OBJECT: obj})
            try:
                result = expression.run(act)
            except (EvaluationError, CostExceeded) as err:
                raise MutationError(str(err)) from err
            obj = _apply(patch_type, expression.text, result, obj, shape)
        return obj


def _apply(patch_type: str, text: str, result: Any, obj: dict[str, Any], shape: Shape) -> dict[str, Any]:
    if patch_type == APPLY_CONFIGURATION:
        if not isinstance(result, dict):
            raise MutationError(f"applyConfiguration expression '{text}' must evaluate to an Object")
        try:
            return merge(copy.deepcopy(obj), result, shape)
        except TypedError as err:
            raise MutationError(f"error applying patch: {err}") from err
    if not isinstance(result, list) or not all(isinstance(op, dict) for op in result):
        raise MutationError(f"jsonPatch expression '{text}' must evaluate to a list of JSONPatch")
    try:
        return jsonpatch.apply_patch(obj, result)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as err:
        raise MutationError(f"JSON Patch: {err}") from err
