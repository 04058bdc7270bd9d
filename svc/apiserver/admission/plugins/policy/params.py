"""A binding's parameter objects: `paramRef` by name or label selector, in the namespace it names,
else the request's, with `parameterNotFoundAction` deciding what no parameter means.

A policy without `paramKind`, or a binding without `paramRef`, evaluates once with `params` null.
A selector evaluates the policy once per selected object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.apiserver.admission.plugins.policy.objects import Objects
from svc.machinery.labels import SelectorError, label_selector_from_dict


class ParamError(Exception):
    """A binding whose parameters cannot be used; the policy's failurePolicy decides."""


async def collect_params(
    objects: Objects, param_kind: Mapping[str, Any] | None, param_ref: Mapping[str, Any] | None, namespace: str
) -> list[dict[str, Any] | None]:
    if not param_kind or not param_ref:
        return [None]
    api_version, kind = str(param_kind.get("apiVersion", "")), str(param_kind.get("kind", ""))
    resource = objects.resource_for(api_version, kind)
    if resource is None:
        raise ParamError(f"paramKind kind `{kind}.{api_version}` not known")
    ref_namespace = str(param_ref.get("namespace") or "")
    if resource.namespaced:
        namespace = ref_namespace or namespace
        if not namespace:
            raise ParamError("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
    elif ref_namespace:
        raise ParamError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    else:
        namespace = ""
    name, selector = param_ref.get("name"), param_ref.get("selector")
    params: list[dict[str, Any] | None]
    if name:
        found = await objects.get(resource, namespace, str(name))
        params = [] if found is None else [found]
    elif selector is not None:
        try:
            params = list(await objects.list(resource, namespace, label_selector_from_dict(selector)))
        except SelectorError as err:
            raise ParamError(str(err)) from err
    else:
        raise ParamError("one of name or selector must be provided")
    if not params and param_ref.get("parameterNotFoundAction") == "Deny":
        raise ParamError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return params
