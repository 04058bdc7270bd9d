"""Container and image-volume pull policy: upstream's SetDefaults_Container reads the tag with
k8s.io/kubernetes pkg/util/parsers.ParseImageName (github.com/distribution/reference grammar) and
ignores a parse error, so an unparsable reference gets `IfNotPresent`."""

from __future__ import annotations

import pytest

from svc.api.defaults.image import image_tag, pull_policy

_DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("reference", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("docker.io/library/nginx:latest", "Always"),
        ("localhost:5000/app", "Always"),
        ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
        ("[::1]:5000/app", "Always"),
        ("Registry.Example.com/app", "Always"),
        (f"nginx@{_DIGEST}", "IfNotPresent"),
        (f"nginx:latest@{_DIGEST}", "Always"),
        ("Nginx", "IfNotPresent"),
        ("", "IfNotPresent"),
        ("nginx@sha256:abc", "IfNotPresent"),
        ("a" * 64, "IfNotPresent"),
        ("nginx:", "IfNotPresent"),
    ],
)
def test_pull_policy(reference: str, policy: str) -> None:
    assert pull_policy(reference) == policy


def test_a_digest_alone_means_no_tag() -> None:
    assert image_tag(f"busybox@{_DIGEST}") == ""


def test_names_longer_than_255_characters_do_not_parse() -> None:
    assert image_tag("registry.example.com/" + "a" * 240) is None
