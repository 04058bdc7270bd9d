"""Which admission requests a webhook or an admission policy applies to, as upstream decides it.

One matcher serves both consumers (upstream has two near-identical ones, `webhook/generic` and
`policy/matching`): a `MatchCriteria` compiled once per configuration (selectors parsed, rules
kept as data) and a `RequestMatcher` that answers per request. The order of the checks is
upstream's and matters for errors: the namespace and object selectors are evaluated first, but a
failure to evaluate them (a namespace that does not exist) is reported only when the rules match,
so a webhook that does not apply never fails a request.

`matchPolicy: Equivalent` lets a rule written for one version of a resource match a request made
through another version of the same stored resource (upstream keys resource equivalence on the
storage prefix; so do we, `Resource.storage_prefix`). The `Matched` result names the resource and
kind the rule matched so the caller can convert the object for the webhook or policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from svc.api.resources import Resource
from svc.machinery import status
from svc.machinery.labels import LabelSelector, SelectorError, label_selector_from_dict
from svc.machinery.status import GroupResource, StatusError
from svc.registry.admission import Attributes, Operation

NamespaceGetter = Callable[[str], Awaitable[Mapping[str, Any] | None]]
"""Reads a namespace by name (a cache first, then storage); None when it does not exist."""

ADMISSION_GROUP = "admissionregistration.k8s.io"
_EXEMPT_KINDS = frozenset(
    {
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)
EVERYTHING = LabelSelector()


@dataclass(frozen=True)
class Matched:
    """The resource (as requested, or its equivalent a rule named) and the kind of the object there."""

    resource: Resource
    subresource: str
    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def is_namespace_request(attributes: Attributes) -> bool:
    resource = attributes.resource
    return resource.name == "namespaces" and not resource.upstream_group


def is_exempt_configuration(attributes: Attributes) -> bool:
    """Requests on webhook configurations and admission policies are never sent to webhooks or
    policies, so a broken one can always be fixed (upstream's `IsExemptAdmissionConfigurationResource`)."""
    resource = attributes.resource
    return resource.upstream_group == ADMISSION_GROUP and resource.kind in _EXEMPT_KINDS


def _split(entry: str) -> tuple[str, str]:
    resource, _, subresource = entry.partition("/")
    return resource, subresource


def rule_matches(rule: Mapping[str, Any], attributes: Attributes, resource: Resource | None = None) -> bool:
    """One RuleWithOperations against a request (`resource` overrides the requested one, for
    Equivalent matching): operation, group, version, resource/subresource and scope."""
    resource = resource or attributes.resource
    operations = rule.get("operations") or ()
    if "*" not in operations and attributes.operation.value not in operations:
        return False
    groups = rule.get("apiGroups") or ()
    if "*" not in groups and resource.group not in groups:
        return False
    versions = rule.get("apiVersions") or ()
    if "*" not in versions and resource.version not in versions:
        return False
    if not _resource_matches(rule.get("resources") or (), resource.name, attributes.subresource):
        return False
    return _scope_matches(rule.get("scope") or "*", attributes, resource)


def _resource_matches(entries: Iterable[str], name: str, subresource: str) -> bool:
    for entry in entries:
        wanted, wanted_sub = _split(entry)
        if (wanted in ("*", name)) and (wanted_sub in ("*", subresource)):
            return True
    return False


def _scope_matches(scope: str, attributes: Attributes, resource: Resource) -> bool:
    # A Namespace object is cluster-scoped even though its requests carry its own name as namespace.
    namespace_object = resource.name == "namespaces" and not resource.upstream_group
    if scope == "Namespaced":
        return not namespace_object and bool(attributes.namespace)
    if scope == "Cluster":
        return namespace_object or not attributes.namespace
    return True


class Equivalents:
    """Resources stored together (one storage prefix) are the same resource in other versions or
    groups (`apps/v1` and a hypothetical `apps/v1beta2` deployments, `autoscaling/v1` and `v2`
    HPAs, core and `events.k8s.io` events, the versions of a custom resource)."""

    def __init__(self, resources: Iterable[Resource]) -> None:
        self._by_prefix: dict[str, list[Resource]] = {}
        self._stores: Mapping[Any, Any] | None = None
        self._indexed = -1
        for resource in resources:
            self.add(resource)

    @classmethod
    def following(cls, stores: Mapping[Any, Any]) -> Equivalents:
        """The equivalents among a server's stores (values with a `resource`), re-indexed when their
        number changes, so custom resources served later are included."""
        equivalents = cls(())
        equivalents._stores = stores
        return equivalents

    def add(self, resource: Resource) -> None:
        members = self._by_prefix.setdefault(resource.storage_prefix, [])
        if resource not in members:
            members.append(resource)

    def of(self, resource: Resource, subresource: str) -> list[Resource]:
        """The other resources equivalent to `resource` that also serve `subresource`."""
        if self._stores is not None and len(self._stores) != self._indexed:
            self._by_prefix = {}
            stores = list(self._stores.values())
            for store in stores:
                self.add(store.resource)
            self._indexed = len(stores)
        return [
            other
            for other in self._by_prefix.get(resource.storage_prefix, ())
            if other != resource and (not subresource or subresource in other.subresources)
        ]


def kind_at(resource: Resource, subresource: str) -> tuple[str, str, str]:
    """(group, version, kind) of the objects a request on `resource`/`subresource` carries."""
    sub = resource.subresources.get(subresource) if subresource else None
    if sub is not None and sub.kind:
        return sub.group, sub.version, sub.kind
    return resource.group, resource.version, resource.kind


def _matched(resource: Resource, subresource: str) -> Matched:
    return Matched(resource, subresource, *kind_at(resource, subresource))


def _selector(value: Any) -> LabelSelector | StatusError:
    if value is None:
        return EVERYTHING
    try:
        return label_selector_from_dict(value)
    except SelectorError as error:
        return status.internal_error(str(error))


@dataclass(frozen=True)
class MatchCriteria:
    """A configuration's matching fields, parsed once.

    `rules` are RuleWithOperations (webhooks) or NamedRuleWithOperations (policies, with
    `resourceNames`); `match_all_without_rules` is the policies' rule that an absent
    `resourceRules` list matches every request."""

    rules: tuple[Mapping[str, Any], ...] = ()
    exclude_rules: tuple[Mapping[str, Any], ...] = ()
    match_policy: str = "Equivalent"
    namespace_selector: LabelSelector | StatusError = EVERYTHING
    object_selector: LabelSelector | StatusError = EVERYTHING
    match_all_without_rules: bool = False

    @classmethod
    def from_webhook(cls, webhook: Mapping[str, Any]) -> MatchCriteria:
        return cls(
            rules=tuple(webhook.get("rules") or ()),
            match_policy=webhook.get("matchPolicy") or "Equivalent",
            namespace_selector=_selector(webhook.get("namespaceSelector")),
            object_selector=_selector(webhook.get("objectSelector")),
        )

    @classmethod
    def from_match_resources(cls, match: Mapping[str, Any] | None) -> MatchCriteria:
        """A policy's `matchConstraints` or a binding's `matchResources`."""
        match = match or {}
        return cls(
            rules=tuple(match.get("resourceRules") or ()),
            exclude_rules=tuple(match.get("excludeResourceRules") or ()),
            match_policy=match.get("matchPolicy") or "Equivalent",
            namespace_selector=_selector(match.get("namespaceSelector")),
            object_selector=_selector(match.get("objectSelector")),
            match_all_without_rules=True,
        )


def _named(rule: Mapping[str, Any], attributes: Attributes) -> bool:
    names = rule.get("resourceNames")
    return not names or attributes.name in names


def match_rules(
    rules: Sequence[Mapping[str, Any]], match_policy: str, attributes: Attributes, equivalents: Equivalents
) -> Matched | None:
    """The first rule matching the request as made, else (Equivalent) the first rule matching an
    equivalent resource. As upstream, `resourceNames` only narrows the direct pass."""
    for rule in rules:
        if rule_matches(rule, attributes) and _named(rule, attributes):
            return _matched(attributes.resource, attributes.subresource)
    if match_policy != "Equivalent":
        return None
    others = equivalents.of(attributes.resource, attributes.subresource)
    for rule in rules:
        for other in others:
            if rule_matches(rule, attributes, other):
                return _matched(other, attributes.subresource)
    return None


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, str] | None:
    if not isinstance(obj, Mapping):
        return None
    metadata = obj.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    return labels if isinstance(labels, Mapping) else {}


def object_selector_matches(selector: LabelSelector, attributes: Attributes) -> bool:
    """The new or the old object carries matching labels (a delete has only the old one)."""
    if selector.empty:
        return True
    for obj in (attributes.object, attributes.old_object):
        labels = _labels(obj)
        if labels is not None and selector.matches(labels):
            return True
    return False


class RequestMatcher:
    """Answers "does this configuration apply to this request" with namespace labels read through
    `get_namespace` and equivalent resources from `equivalents`."""

    def __init__(self, *, equivalents: Equivalents, get_namespace: NamespaceGetter) -> None:
        self.equivalents = equivalents
        self._get_namespace = get_namespace

    async def namespace_selector_matches(self, selector: LabelSelector, attributes: Attributes) -> bool:
        """Cluster-scoped requests (other than on namespaces) always match; a namespace's own create
        or update is judged by the labels it is given; a missing namespace is a 404."""
        namespace_object = is_namespace_request(attributes)
        name = attributes.name if namespace_object else attributes.namespace
        if not name and not namespace_object:
            return True
        if selector.empty:
            return True
        if (
            namespace_object
            and not attributes.subresource
            and attributes.operation in (Operation.CREATE, Operation.UPDATE)
        ):
            return selector.matches(_labels(attributes.object) or {})
        namespace = await self._get_namespace(name)
        if namespace is None:
            raise status.not_found(GroupResource("", "namespaces"), name)
        return selector.matches(_labels(namespace) or {})

    async def matches(self, criteria: MatchCriteria, attributes: Attributes) -> Matched | None:
        """The match, None when the configuration does not apply; raises StatusError when it applies
        but a selector could not be evaluated."""
        namespace_error: StatusError | None = None
        selector = criteria.namespace_selector
        if isinstance(selector, StatusError):
            namespace_error = selector
        else:
            try:
                if not await self.namespace_selector_matches(selector, attributes):
                    return None
            except StatusError as error:
                namespace_error = error
        object_error: StatusError | None = None
        if isinstance(criteria.object_selector, StatusError):
            object_error = criteria.object_selector
        elif not object_selector_matches(criteria.object_selector, attributes):
            return None
        if criteria.exclude_rules and match_rules(
            criteria.exclude_rules, criteria.match_policy, attributes, self.equivalents
        ):
            return None
        if criteria.match_all_without_rules and not criteria.rules:
            matched: Matched | None = _matched(attributes.resource, attributes.subresource)
        else:
            matched = match_rules(criteria.rules, criteria.match_policy, attributes, self.equivalents)
        if matched is None:
            return None
        if namespace_error is not None:
            raise namespace_error
        if object_error is not None:
            raise object_error
        return matched


def targets(attributes: Attributes, group: str, resource: str, subresources: tuple[str, ...] = ("",)) -> bool:
    """Built-in plugins: the request is for `resource` of upstream `group`, on the main resource or
    one of `subresources`."""
    served = attributes.resource
    return served.name == resource and served.upstream_group == group and attributes.subresource in subresources


def is_pod(attributes: Attributes, subresources: tuple[str, ...] = ("",)) -> bool:
    return targets(attributes, "", "pods", subresources) and isinstance(attributes.object, dict)
