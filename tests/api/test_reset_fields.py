"""The per-kind table of reset fields (`svc.api.reset_fields`) names real kinds and subresources, and
the generic rule covers everything else, custom resources included."""

from __future__ import annotations

from svc.api.reset_fields import _EXCEPTIONS, KeepOnly, reset_fields
from svc.api.resources import Resource, Subresource, _table
from svc.api.status_metadata import KEPT_BY_KIND


def _resource(group: str, kind: str, subresources: tuple[str, ...], *, custom: bool = False) -> Resource:
    return Resource(
        group=group,
        upstream_group=group,
        version="v1",
        name=kind.lower() + "s",
        kind=kind,
        singular=kind.lower(),
        namespaced=True,
        verbs=frozenset(),
        short_names=(),
        categories=(),
        definition="",
        subresources={name: Subresource(name, group, "v1", kind, ()) for name in subresources},
        custom=custom,
    )


def test_every_listed_kind_serves_the_listed_subresources() -> None:
    served = {}
    for row in _table():
        served.setdefault((row["group"], row["kind"]), set()).update(row["subresources"])
    for identity, per_subresource in _EXCEPTIONS.items():
        assert identity in served, identity
        assert set(per_subresource) - {""} <= served[identity], identity


def test_the_generic_rule_resets_status_on_the_main_resource_and_spec_on_status() -> None:
    service = _resource("", "Service", ("status", "proxy"))
    assert reset_fields(service, "") == (("status",),)
    assert reset_fields(service, "status") == (("spec",),)
    assert reset_fields(service, "proxy") == ()
    assert reset_fields(_resource("", "ConfigMap", ()), "") == ()


def test_upstream_exceptions() -> None:
    csr = _resource("certificates.k8s.io", "CertificateSigningRequest", ("status", "approval"))
    assert reset_fields(csr, "") == (("spec",), ("status",))
    assert reset_fields(csr, "approval") == (("spec",), ("status", "certificate"))
    pod = _resource("", "Pod", ("status",))
    assert ("metadata", "ownerReferences") in reset_fields(pod, "status")
    claim = _resource("resource.k8s.io", "ResourceClaim", ("status",))
    assert reset_fields(claim, "status") == (("spec",), ("metadata",))


def test_a_custom_resource_follows_the_generic_rule_whatever_its_kind() -> None:
    custom = _resource("apps", "Deployment", ("status",), custom=True)
    assert reset_fields(custom, "status") == (("spec",),)


def test_status_resets_agree_with_the_metadata_a_status_write_keeps() -> None:
    """A kind whose status write takes only the spec from the stored object resets only `spec`; one that
    also keeps stored metadata resets that metadata too (all of it, or the fields it keeps)."""
    for (group, kind), kept in KEPT_BY_KIND.items():
        reset = reset_fields(_resource(group, kind, ("status",)), "status")
        if kind == "CertificateSigningRequest":
            continue  # its status strategy also resets the approval conditions
        if kept == frozenset():
            assert reset == (("spec",),), kind
        elif kept is None or {"labels", "annotations"} <= kept:
            assert ("metadata",) in reset, kind
        else:
            assert {("metadata", key) for key in kept} <= set(reset), kind


def test_pod_ephemeralcontainers_and_resize_keep_only_their_fields() -> None:
    pod = _resource("", "Pod", ("status", "ephemeralcontainers", "resize"))
    assert reset_fields(pod, "ephemeralcontainers") == KeepOnly((("spec", "ephemeralContainers"),))
    resize = reset_fields(pod, "resize")
    assert isinstance(resize, KeepOnly)
    assert ("spec", "containers", "*", "resources") in resize.patterns
    assert ("spec", "initContainers", "*", "resizePolicy") in resize.patterns
