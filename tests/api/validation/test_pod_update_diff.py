"""The spec diff upstream appends to a refused pod update: apimachinery's `diff.Diff` (1.34+), a unified
diff of the internal types as `json.MarshalIndent(obj, "", " ")` writes them."""

from __future__ import annotations

import json
import re

from svc.api.validation.go_diff import go_json, unified_diff
from tests.api.validation.support import causes, with_path
from tests.api.validation.test_pods import POD


def _keys(text: str) -> list[str]:
    """The object keys of a JSON text in the order written."""
    return re.findall(r'^ *"(\w+)":', text, flags=re.MULTILINE)


def test_internal_types_write_every_field_under_its_go_name_in_struct_order() -> None:
    # the order upstream's ObjectDiff printed for a pod spec (openshift/origin#16467): the embedded
    # VolumeSource flattened into the volume, a secret source's fields, then the container's
    volume = {"name": "token", "secret": {"secretName": "token", "defaultMode": 420}}
    spec = {"volumes": [volume], "containers": [{"name": "c", "image": "nginx"}]}
    keys = _keys(go_json(spec, "PodSpec"))
    assert keys[:3] == ["Volumes", "Name", "HostPath"]
    assert keys[keys.index("GitRepo") + 1 : keys.index("GitRepo") + 7] == [
        "Secret",
        "SecretName",
        "Items",
        "DefaultMode",
        "Optional",
        "NFS",
    ]
    container = keys[keys.index("Containers") + 1 :]
    assert container[:11] == [
        "Name",
        "Image",
        "Command",
        "Args",
        "WorkingDir",
        "Ports",
        "EnvFrom",
        "Env",
        "Resources",
        "Limits",
        "Requests",
    ]


def test_absent_fields_are_go_zero_values_and_host_fields_move_into_the_security_context() -> None:
    text = go_json({"containers": [{"name": "c"}], "hostNetwork": True}, "PodSpec")
    value = json.loads(text)
    assert value["Volumes"] is None
    assert value["ActiveDeadlineSeconds"] is None
    assert value["DNSPolicy"] == ""
    assert value["SecurityContext"]["HostNetwork"] is True
    assert value["SecurityContext"]["HostPID"] is False
    assert value["Containers"][0]["Resources"] == {"Limits": None, "Requests": None, "Claims": None}
    assert value["Containers"][0]["TTY"] is False
    assert text.startswith('{\n "Volumes": null,\n "InitContainers": null,\n "Containers": [\n  {\n   "Name": "c",')


def test_unified_diff_has_hunks_with_three_lines_of_context_and_no_file_header() -> None:
    old = "\n".join(f"line{i}" for i in range(10))
    new = old.replace("line5", "line5b")
    assert unified_diff(old, new) == (
        "@@ -3,7 +3,7 @@\n line2\n line3\n line4\n-line5\n+line5b\n line6\n line7\n line8\n"
    )


def test_refused_pod_update_carries_the_unified_json_diff() -> None:
    changed = with_path(POD, "spec.restartPolicy", "Never")
    [(field, reason, message)] = causes("", "Pod", changed, old=POD)
    assert (field, reason) == ("spec", "FieldValueForbidden")
    detail, diff = message.split("\n", 1)
    assert detail.endswith("(allow it to be set to 1 if it was previously negative)")
    lines = diff.splitlines()
    assert lines[0].startswith("@@ -") and lines[0].endswith(" @@")
    assert lines[1:4] == ["   }", "  ],", '  "EphemeralContainers": null,']
    assert lines[4] == '- "RestartPolicy": "Always",'
    assert lines[5] == '+ "RestartPolicy": "Never",'
    assert len(lines) == 9
    assert diff.endswith("\n")


def test_adding_a_container_is_refused_before_any_diff() -> None:
    changed = with_path(POD, "spec.containers.1", {"name": "sidecar", "image": "busybox"})
    assert causes("", "Pod", changed, old=POD) == [
        ("spec.containers", "FieldValueForbidden", "Forbidden: pod updates may not add or remove containers")
    ]
