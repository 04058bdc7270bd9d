"""The in-process encoding scenario: its rows and facts, on a list small enough for a unit test."""

import asyncio

from bench import encode
from bench.report import targets_section


def test_the_scenario_reports_each_encoding_and_the_targets_read_its_facts() -> None:
    section, facts = encode.run(count=20, repeats=1)
    assert [row[0] for row in section.rows] == [
        "JSON (orjson)",
        "Protobuf",
        "Protobuf, no two pods of one template",
        "Table: rows and cells only",
        "Table: rendered and encoded as JSON (includeObject=Metadata)",
    ]
    assert facts["encode objects"] == 20
    assert facts["encode json"] > 0 and facts["encode protobuf"] > 0 and facts["encode table"] > 0
    rows = {row[0]: row for row in targets_section(facts).rows}
    assert rows["encoding a list of 20 pods, Protobuf"][2].endswith(" MB/s")
    assert rows["Table of 20 pods, rendered and encoded"][3] in ("yes", "**no**")


def test_served_pods_are_distinct_running_pods_of_one_shape() -> None:
    pods = encode.served_pods(3)
    assert len({pod["metadata"]["uid"] for pod in pods}) == 3
    assert {pod["status"]["phase"] for pod in pods} == {"Running"}
    assert [entry["manager"] for entry in pods[0]["metadata"]["managedFields"]] == [
        "kube-controller-manager",
        "kubelet",
    ]


def test_each_run_gives_pods_no_earlier_run_gave() -> None:
    first, second = encode.served_pods(2, run=0), encode.served_pods(2, run=1)
    assert {p["metadata"]["uid"] for p in first}.isdisjoint(p["metadata"]["uid"] for p in second)
    assert first[0]["metadata"]["creationTimestamp"] != second[0]["metadata"]["creationTimestamp"]


def test_pods_share_their_template_unless_asked_not_to() -> None:
    shared, own = encode.served_pods(2), encode.served_pods(2, shared=False)
    assert shared[0]["spec"]["containers"] == shared[1]["spec"]["containers"]
    assert own[0]["spec"]["containers"] != own[1]["spec"]["containers"]
    assert own[0]["spec"]["volumes"] != own[1]["spec"]["volumes"]
    assert own[0]["metadata"]["ownerReferences"] != own[1]["metadata"]["ownerReferences"]


def test_the_scenario_runs_in_a_fresh_interpreter_and_reports_the_same_rows() -> None:
    section, facts = asyncio.run(encode.run_in_fresh_process(count=20, repeats=1))
    assert [row[0] for row in section.rows] == [row[0] for row in encode.run(count=20, repeats=1)[0].rows]
    assert facts["encode objects"] == 20 and facts["encode protobuf"] > 0
