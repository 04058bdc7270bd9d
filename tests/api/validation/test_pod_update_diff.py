"""The spec diff upstream appends to a refused pod update, in go-cmp's layout."""

from __future__ import annotations

from svc.api.validation.go_diff import cmp_diff
from tests.api.validation.support import causes, with_path
from tests.api.validation.test_pods import POD


def test_refused_pod_update_carries_a_go_cmp_style_diff() -> None:
    changed = with_path(POD, "spec.restartPolicy", "Never")
    [(field, reason, message)] = causes("", "Pod", changed, old=POD)
    assert (field, reason) == ("spec", "FieldValueForbidden")
    _, diff = message.split("\n", 1)
    lines = diff.splitlines()
    assert lines[0] == "  core.PodSpec{"
    assert '- \tRestartPolicy: "Always",' in lines
    assert '+ \tRestartPolicy: "Never",' in lines
    assert lines[-1] == "  }"
    assert diff.endswith("}\n")


def test_unchanged_members_far_from_a_change_collapse() -> None:
    old = {f"field{i}": i for i in range(8)}
    new = {**old, "field4": 40}
    assert cmp_diff(old, new, "core.Thing").splitlines() == [
        "  core.Thing{",
        "  \t... // 2 identical fields",
        "  \tField2: 2,",
        "  \tField3: 3,",
        "- \tField4: 4,",
        "+ \tField4: 40,",
        "  \tField5: 5,",
        "  \tField6: 6,",
        "  \tField7: 7,",
        "  }",
    ]


def test_lists_of_one_length_diff_element_by_element() -> None:
    old = {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]}
    new = {"containers": [{"name": "a", "image": "x:2"}, {"name": "b", "image": "y:1"}]}
    assert cmp_diff(old, new, "core.PodSpec").splitlines() == [
        "  core.PodSpec{",
        "  \tContainers: []core.Container{",
        "  \t\t{",
        '  \t\t\tName: "a",',
        '- \t\t\tImage: "x:1",',
        '+ \t\t\tImage: "x:2",',
        "  \t\t},",
        '  \t\t{Name: "b", Image: "y:1"},',
        "  \t},",
        "  }",
    ]
