"""The Job's rules one at a time: index sets, back-off, pod failure policy, success policy."""

from __future__ import annotations

from svc.controllers import job_rules


def test_indexes_are_compressed_into_ranges():
    assert job_rules.format_indexes([5, 1, 3, 4, 7]) == "1,3-5,7"
    assert job_rules.parse_indexes("1,3-5,7", 6) == {1, 3, 4, 5}


def test_back_off_doubles_from_ten_seconds_up_to_six_minutes():
    assert [job_rules.backoff_delay(n) for n in (0, 1, 2, 3, 10)] == [0.0, 10.0, 20.0, 40.0, 360.0]


def failed_pod(code: int, container: str = "main") -> dict:
    terminated = {"terminated": {"exitCode": code}}
    return {
        "metadata": {"name": "p", "namespace": "ns"},
        "status": {"phase": "Failed", "containerStatuses": [{"name": container, "state": terminated}]},
    }


def job_with(rules: list[dict]) -> dict:
    return {"spec": {"podFailurePolicy": {"rules": rules}}}


def test_an_exit_code_rule_matches_with_upstreams_message():
    job = job_with([{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}])
    match = job_rules.match_failure_policy(job, failed_pod(42))
    assert match is not None and match.action == "FailJob"
    assert match.message == "Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 0"


def test_the_first_matching_rule_wins_and_not_in_excludes_codes():
    rules = [
        {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1, 2]}},
        {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}},
    ]
    assert job_rules.match_failure_policy(job_with(rules), failed_pod(1)).action == "Count"
    assert job_rules.match_failure_policy(job_with(rules), failed_pod(9)).action == "Ignore"


def test_a_pod_condition_rule_matches_a_disruption():
    job = job_with([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}])
    pod = failed_pod(137)
    pod["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True"}]
    assert job_rules.match_failure_policy(job, pod).action == "Ignore"


def test_success_policy_by_indexes_and_by_count():
    job = {"spec": {"completions": 5, "successPolicy": {"rules": [{"succeededIndexes": "0,1"}, {"succeededCount": 3}]}}}
    assert job_rules.success_policy_met(job, {0, 1}) == 0
    assert job_rules.success_policy_met(job, {2, 3, 4}) == 1
    assert job_rules.success_policy_met(job, {2, 3}) is None


def test_surplus_pods_are_strays_duplicates_then_the_first_ranked_beyond_the_wanted_count():
    def pod(name: str, index: int | None, rank: int) -> dict:
        return {"name": name, "index": index, "rank": rank}

    def index_of(p: dict) -> int | None:
        return p["index"]

    def rank(p: dict) -> int:
        return p["rank"]

    active = [pod("a", 0, 2), pod("b", 0, 1), pod("c", None, 5), pod("d", 7, 5), pod("e", 1, 3)]
    doomed = job_rules.surplus_pods(active, 3, rank, index_of, completions=3)
    assert [p["name"] for p in doomed] == ["c", "d", "b"]
    assert [p["name"] for p in job_rules.surplus_pods(active, 1, rank, index_of, 3)] == ["c", "d", "b", "a"]
    assert [p["name"] for p in job_rules.surplus_pods(active, 3, rank)] == ["b", "a"]
