"""Volumes that write files into the pod: relative paths without `..`, modes within 0777, one kind
per projected source, no two projected files on one path, token lifetimes (upstream's texts and
its own error paths)."""

from __future__ import annotations

from typing import Any

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD

INVALID, REQUIRED, FORBIDDEN = "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden"
VOLUME = "spec.volumes[1]"


def _with_volume(source: dict[str, Any]) -> dict[str, Any]:
    return with_path(POD, "spec.volumes.1", {"name": "files", **source})


def test_secret_items_are_relative_files() -> None:
    secret = {"secretName": "creds", "defaultMode": 0o1777, "items": [{"key": "", "path": "/etc/passwd"}]}
    assert_causes(
        causes("", "Pod", _with_volume({"secret": secret})),
        [
            (f"{VOLUME}.secret.defaultMode", INVALID, "must be a number between 0 and 0777 (octal), both inclusive"),
            (f"{VOLUME}.secret.items[0].key", REQUIRED, "Required value"),
            (f"{VOLUME}.secret.items[0].path", INVALID, "must be a relative path"),
        ],
    )


def test_config_map_item_may_not_step_out() -> None:
    config_map = {"name": "settings", "items": [{"key": "a", "path": "../a"}, {"key": "b", "path": "..b", "mode": -1}]}
    assert_causes(
        causes("", "Pod", _with_volume({"configMap": config_map})),
        [
            (f"{VOLUME}.configMap.items[0].path", INVALID, "must not contain '..'"),
            (f"{VOLUME}.configMap.items[1].path", INVALID, "must not start with '..'"),
            (f"{VOLUME}.configMap.items[1].mode", INVALID, "must be a number between 0 and 0777"),
        ],
    )


def test_downward_api_file_errors_sit_at_the_volume_source() -> None:
    downward = {"items": [{"path": "labels"}]}
    assert_causes(
        causes("", "Pod", _with_volume({"downwardAPI": downward})),
        [(f"{VOLUME}.downwardAPI", REQUIRED, "one of fieldRef and resourceFieldRef is required")],
    )


PROJECTED = f"{VOLUME}.projected"


def test_projected_sources_are_one_kind_each_on_distinct_paths() -> None:
    sources = [
        {"configMap": {"name": "ca", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {
            "secret": {"name": "tls", "items": [{"key": "tls.crt", "path": "ca.crt"}]},
            "serviceAccountToken": {"path": "token", "expirationSeconds": 60},
        },
    ]
    assert_causes(
        causes("", "Pod", _with_volume({"projected": {"sources": sources}})),
        [
            (PROJECTED, INVALID, 'Invalid value: "tls": conflicting duplicate paths'),
            (
                f"{PROJECTED}.sources[1].serviceAccountToken.expirationSeconds",
                INVALID,
                "may not specify a duration less than 10 minutes",
            ),
            (f"{PROJECTED}.sources[1]", FORBIDDEN, "may not specify more than 1 volume type per source"),
        ],
    )


def _token_volume(path: str) -> dict[str, Any]:
    return _with_volume({"projected": {"sources": [{"serviceAccountToken": {"path": path}}]}})


def test_token_outside_the_volume_is_refused_at_the_projection() -> None:
    assert_causes(
        causes("", "Pod", _token_volume("../token")), [(f"{PROJECTED}.path", INVALID, "must not contain '..'")]
    )


def test_stored_token_outside_the_volume_may_stay() -> None:
    stored = _token_volume("/var/token")
    relabeled = with_path(stored, "metadata.labels", {"tier": "web"})
    assert causes("", "Pod", relabeled, old=stored) == []
    assert f"{PROJECTED}.path" in [cause[0] for cause in causes("", "Pod", relabeled, old=_token_volume("token"))]
