"""Shard selectors: FNV-1a, upstream's parser cases and messages, cel-go syntax errors, matching, coverage."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.shards import (
    HASH_SPACE_END,
    ShardRange,
    ShardSelector,
    ShardSelectorError,
    fnv1a_64,
    parse_shard_selector,
    shard_hash,
)

UID = "object.metadata.uid"
NAMESPACE = "object.metadata.namespace"
LOW, HALF, TOP = "0x0000000000000000", "0x8000000000000000", "0x10000000000000000"
FIRST_HALF = f"shardRange(object.metadata.uid, '{LOW}', '{HALF}')"
SECOND_HALF = f"shardRange(object.metadata.uid, '{HALF}', '{TOP}')"
EXPR_START = (
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
)


def error_of(text: str) -> str:
    with pytest.raises(ShardSelectorError) as caught:
        parse_shard_selector(text)
    return str(caught.value)


def with_uid(uid: object) -> dict:
    return {"metadata": {"name": "n", "uid": uid}}


# --- FNV-1a ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", 0xCBF29CE484222325),
        (b"a", 0xAF63DC4C8601EC8C),
        (b"ab", 0x089C4407B545986A),
        (b"abc", 0xE71FA2190541574B),
        (b"foobar", 0x85944171F73967E8),
    ],
)
def test_fnv1a_64_matches_published_vectors(data: bytes, expected: int) -> None:
    assert fnv1a_64(data) == expected


@pytest.mark.parametrize("text", ["", "abc", "test-uid-12345", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"])
def test_fnv1a_64_stays_within_64_bits(text: str) -> None:
    assert 0 <= fnv1a_64(text.encode()) < HASH_SPACE_END


def test_fnv1a_64_distinguishes_inputs() -> None:
    assert fnv1a_64(b"test") != fnv1a_64(b"different")


# --- upstream's valid parser cases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        (FIRST_HALF, [(UID, 0, 1 << 63)]),
        (f"shardRange(object.metadata.uid, '{LOW}', '{TOP}')", [(UID, 0, HASH_SPACE_END)]),
        (
            "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')",
            [(NAMESPACE, 0xAA, 0xFF)],
        ),
        (f"{FIRST_HALF} || {SECOND_HALF}", [(UID, 0, 1 << 63), (UID, 1 << 63, HASH_SPACE_END)]),
        (
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000005') || "
            "shardRange(object.metadata.uid, '0x0000000000000005', '0x000000000000000a') || "
            "shardRange(object.metadata.uid, '0x000000000000000a', '0x000000000000000f')",
            [(UID, 0, 5), (UID, 5, 10), (UID, 10, 15)],
        ),
        (f"shardRange(object.metadata.uid,'{LOW}','{HALF}')", [(UID, 0, 1 << 63)]),
        (f"  shardRange( object.metadata.uid ,  '{LOW}' ,  '{HALF}' )  ", [(UID, 0, 1 << 63)]),
    ],
)
def test_parse_accepts_upstream_cases(text: str, ranges: list[tuple[str, int, int]]) -> None:
    assert parse_shard_selector(text).ranges == tuple(ShardRange(*shard) for shard in ranges)


@pytest.mark.parametrize(
    "text",
    [
        FIRST_HALF,
        SECOND_HALF,
        f"shardRange(object.metadata.uid, '{LOW}', '{TOP}')",
        "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')",
        f"{FIRST_HALF} || {SECOND_HALF}",
    ],
)
def test_string_form_round_trips(text: str) -> None:
    selector = parse_shard_selector(text)
    assert str(selector) == text
    assert parse_shard_selector(str(selector)) == selector


def test_string_form_is_canonical_not_the_request_text() -> None:
    text = f'(shardRange(object.metadata.uid,"{LOW}",\n  r"{HALF}"))||{SECOND_HALF}'
    assert str(parse_shard_selector(text)) == f"{FIRST_HALF} || {SECOND_HALF}"


def test_field_path_is_the_shared_key() -> None:
    text = "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')"
    assert parse_shard_selector(text).field_path == NAMESPACE


# --- upstream's error cases and messages ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty shard selector is not allowed; omit the parameter for unfiltered lists"),
        (" \t\v\n ", "empty shard selector is not allowed; omit the parameter for unfiltered lists"),
        (
            f"shardRange(object.metadata.uid, '0000000000000000', '{HALF}')",
            "hexStart must have '0x' prefix, got \"0000000000000000\"",
        ),
        (
            f"shardRange(object.metadata.uid, '{LOW}', '8000000000000000')",
            "hexEnd must have '0x' prefix, got \"8000000000000000\"",
        ),
        (f"shardRange(object.metadata.uid, '0x', '{HALF}')", "hexStart: hex value is required after '0x'"),
        (
            "shardRange(object.metadata.name, '0x00', '0x80')",
            'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
        ),
        (
            "shardRange(object.metadata.labels, '0x00', '0x80')",
            'unsupported field path "object.metadata.labels"; supported: object.metadata.uid, '
            "object.metadata.namespace",
        ),
        (
            "invalidFunc(object.metadata.uid, '0x00', '0x80')",
            'unsupported function "invalidFunc"; only shardRange() and || are allowed',
        ),
        (
            "shardRange(object.metadata.uid, '0x000000000000000000', '0x80')",
            'hexStart: hex value too long (18 chars, max 17): "000000000000000000"',
        ),
        ("shardRange(object.metadata.uid, '0x0g', '0x80')", 'hexStart: invalid hex character "g" in "0x0g"'),
        (
            "shardRange(object.metadata.uid, '0x0', '0x8') && shardRange(object.metadata.uid, '0x8', '0xf')",
            'unsupported function "_&&_"; only shardRange() and || are allowed',
        ),
        ("shardRange(object.metadata.uid, 0, 8)", "hexStart must be a string literal, got int64"),
        ("object.metadata.uid > '0x0'", 'unsupported function "_>_"; only shardRange() and || are allowed'),
        ("shardRange(object.metadata.uid, '0x0')", "shardRange() requires exactly 3 arguments, got 2"),
        (
            "shardRange(object.metadata.uid, hex(0), '0x8')",
            "hexStart must be a string literal (e.g. '0xff'), got expression kind 1",
        ),
        (
            f"{FIRST_HALF} || shardRange(object.metadata.namespace, '{HALF}', '{TOP}')",
            'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
        ),
        (
            f"shardRange(object.metadata.uid, '0x0', '{HALF}')",
            'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
        ),
        (
            f"shardRange(object.metadata.uid, '{LOW}', '0xff')",
            'hexEnd must be a 0x-prefixed 16-digit hex value, got "0xff" (did you mean "0x00000000000000ff"?)',
        ),
        (
            f"shardRange(object.metadata.uid, '{HALF}', '{HALF}')",
            "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
        ),
        (
            f"shardRange(object.metadata.uid, '0xffffffffffffffff', '{LOW}')",
            "shard range start 0xffffffffffffffff must be less than end 0x0000000000000000",
        ),
    ],
)
def test_parse_rejects_upstream_cases_with_upstream_message(text: str, message: str) -> None:
    assert error_of(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"shardRange(object.metadata.uid, '{LOW}', '0X8000000000000000')", "hexEnd must have '0x' prefix"),
        (f"shardRange(object.metadata.uid, '{LOW}', '0x800000000000000A')", 'invalid hex character "A"'),
        (
            f"shardRange(object.metadata.uid, '{LOW}', '0x1ffffffffffffffff')",
            "hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64)",
        ),
        (f"shardRange(object.metadata.uid, '{TOP}', '{TOP}')", f"shard range start {TOP} must be less than end"),
        ("shardRange(object.metadata.uid, 1u, '0x1')", "got uint64"),
        ("shardRange(object.metadata.uid, 1.5, '0x1')", "got float64"),
        ("shardRange(object.metadata.uid, true, '0x1')", "got bool"),
        ("shardRange(object.metadata.uid, null, '0x1')", "got structpb.NullValue"),
        ("shardRange(object.metadata.uid, b'0x1', '0x1')", "got []uint8"),
        ("shardRange(object.metadata.uid, -1, '0x1')", "got int64"),
        ("shardRange(object.metadata.uid, -'0x1', '0x1')", "got expression kind 1"),
        ("shardRange(object.metadata.uid, ['0x1'], '0x1')", "got expression kind 4"),
        ("shardRange(object.metadata.uid, {'a': 1}, '0x1')", "got expression kind 6"),
        ("shardRange(object.metadata.uid, Msg{a: 1}, '0x1')", "got expression kind 8"),
        ("shardRange('uid', '0x0', '0x1')", "first argument: expected field path (e.g. object.metadata.uid), got"),
        ("shardRange(object.metadata['uid'], '0x0', '0x1')", "got expression kind 1"),
        (f"shardRange(.object.metadata.uid, '{LOW}', '{HALF}')", 'unsupported field path ".object.metadata.uid"'),
        ("shardRange()", "shardRange() requires exactly 3 arguments, got 0"),
        ("object.metadata.uid", "unexpected expression kind 7; expected shardRange() call or || operator"),
        (f"{FIRST_HALF} || true", "unexpected expression kind 5"),
        (f"{FIRST_HALF} ? {FIRST_HALF} : {FIRST_HALF}", 'unsupported function "_?_:_"'),
        (f"!{FIRST_HALF}", 'unsupported function "!_"'),
    ],
)
def test_parse_reports_the_walkers_message(text: str, message: str) -> None:
    assert message in error_of(text)


def test_first_bad_range_is_reported_before_a_field_mismatch() -> None:
    text = f"{FIRST_HALF} || shardRange(object.metadata.namespace, '{HALF}', '{TOP}') || shardRange(x, '0x0', '0x1')"
    assert error_of(text).startswith('unsupported field path "x"')


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="empty shard selector"):
        parse_shard_selector("")


# --- CEL syntax accepted and rejected as cel-go does ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f'shardRange(object.metadata.uid, "{LOW}", "{HALF}")',
        f"shardRange(object.metadata.uid, r'{LOW}', R\"{HALF}\")",
        f"shardRange(object.metadata.uid, '''{LOW}''', \"\"\"{HALF}\"\"\")",
        "shardRange(object.metadata.uid, '\\x30x0000000000000000', '\\u0030x8000000000000000')",
        f"shardRange(object.metadata.uid, '\\060x0000000000000000', '{HALF}')",
        f"shardRange(object.metadata.uid, // lower half\n '{LOW}', '{HALF}')",
        f"((shardRange(object.metadata.uid, '{LOW}', '{HALF}')))",
        f"shardRange(object.metadata.`uid`, '{LOW}', '{HALF}')",
        f"object.shardRange(object.metadata.uid, '{LOW}', '{HALF}')",
        f"\u00a0{FIRST_HALF}\u3000",
    ],
)
def test_cel_spellings_of_the_same_range_are_accepted(text: str) -> None:
    assert str(parse_shard_selector(text)) == FIRST_HALF


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"shardRange(object.metadata.uid, '{LOW}', '{HALF}'", "Syntax error: missing ')' at '<EOF>'"),
        (
            f"shardRange(object.metadata.uid, '{LOW}, '{HALF}')",
            "Syntax error: token recognition error at: '')'",
        ),
        (f"{FIRST_HALF} | {SECOND_HALF}", "Syntax error: token recognition error at: '| '"),
        (f"{FIRST_HALF} & {SECOND_HALF}", "Syntax error: token recognition error at: '& '"),
        (f"{FIRST_HALF} @", "Syntax error: token recognition error at: '@'"),
        (f"{FIRST_HALF} || {SECOND_HALF}\u00a0x", "Syntax error: token recognition error at: '\u00a0'"),
        (
            f"shardRange(object.metadata.uid '{LOW}', '{HALF}')",
            f"Syntax error: mismatched input ''{LOW}'' expecting ')'",
        ),
        (
            f"shardRange(object.metadata.uid, '{LOW}' '{HALF}')",
            f"Syntax error: extraneous input ''{HALF}'' expecting ')'",
        ),
        (f"{FIRST_HALF} {SECOND_HALF}", "Syntax error: mismatched input 'shardRange' expecting <EOF>"),
        (f"{FIRST_HALF})", "Syntax error: extraneous input ')' expecting <EOF>"),
        (f"{FIRST_HALF} ||", f"Syntax error: mismatched input '<EOF>' expecting {EXPR_START}"),
        (f"{FIRST_HALF} || || {SECOND_HALF}", f"Syntax error: extraneous input '||' expecting {EXPR_START}"),
        (
            f"shardRange(object.metadata., '{LOW}', '{HALF}')",
            "Syntax error: no viable alternative at input '.,'",
        ),
        (f"shardRange(object.metadata.uid, -, '{HALF}')", "Syntax error: no viable alternative at input '-,'"),
        (
            "shardRange(",
            "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', "
            "'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
        ),
        ("if(object.metadata.uid, '0x0', '0x1')", "reserved identifier: if"),
        (f"shardRange(object.metadata.uid, 0x8000000000000000, '{HALF}')", "invalid int literal"),
        (f"shardRange(object.metadata.uid, 18446744073709551616u, '{HALF}')", "invalid uint literal"),
        (f"shardRange(object.metadata.uid, 1e999, '{HALF}')", "invalid double literal"),
        (f"shardRange(object.metadata.uid, '\\ud800', '{HALF}')", "invalid unicode code point"),
        (f"shardRange(object.metadata.uid, b'\\u0030', '{HALF}')", "unable to unescape string"),
        (f"shardRange(object.metadata.uid, [?'{LOW}'], '{HALF}')", "unsupported syntax '?'"),
        (f"shardRange(object.metadata.?uid, '{LOW}', '{HALF}')", "unsupported syntax '.?'"),
    ],
)
def test_cel_parse_errors_carry_cel_go_messages(text: str, message: str) -> None:
    assert error_of(text) == f"CEL parse error: {message}"


def test_nesting_up_to_cel_go_limit_parses() -> None:
    assert error_of("(" * 249 + "x" + ")" * 249).startswith("unexpected expression kind 3")


def test_nesting_past_cel_go_limit_is_rejected() -> None:
    assert error_of("(" * 250 + "x" + ")" * 250) == "CEL parse error: expression recursion limit exceeded: 250"


def test_expression_size_limit() -> None:
    text = " || ".join([FIRST_HALF] * 1300)
    assert (
        error_of(text) == f"CEL parse error: expression code point size exceeds limit: size: {len(text)}, limit 100000"
    )


def test_long_range_lists_parse() -> None:
    assert len(parse_shard_selector(" || ".join([FIRST_HALF] * 1000)).ranges) == 1000


# --- matching -----------------------------------------------------------------------------------------------------


def point_selector(field_path: str, hash_value: int) -> ShardSelector:
    return ShardSelector((ShardRange(field_path, hash_value, hash_value + 1),))


def test_uid_is_hashed_as_utf8_bytes() -> None:
    assert shard_hash(with_uid("tëst-uid-123"), UID) == fnv1a_64("tëst-uid-123".encode())


def test_namespace_is_hashed_for_the_namespace_path() -> None:
    obj = {"metadata": {"namespace": "team-a", "uid": "u"}}
    assert shard_hash(obj, NAMESPACE) == fnv1a_64(b"team-a")


@pytest.mark.parametrize("obj", [{}, {"metadata": None}, {"metadata": {}}, with_uid(None), with_uid(7)])
def test_missing_value_hashes_as_empty_string(obj: dict) -> None:
    assert point_selector(UID, fnv1a_64(b"")).matches(obj)


def test_cluster_scoped_objects_share_the_empty_namespace_hash() -> None:
    assert point_selector(NAMESPACE, fnv1a_64(b"")).matches({"metadata": {"name": "node-1", "uid": "u"}})


def test_range_start_is_inclusive() -> None:
    value = fnv1a_64(b"test-uid-123")
    assert ShardSelector((ShardRange(UID, value, HASH_SPACE_END),)).matches(with_uid("test-uid-123"))


def test_range_end_is_exclusive() -> None:
    value = fnv1a_64(b"test-uid-123")
    assert not ShardSelector((ShardRange(UID, 0, value),)).matches(with_uid("test-uid-123"))


def test_full_range_matches() -> None:
    assert parse_shard_selector(f"shardRange(object.metadata.uid, '{LOW}', '{TOP}')").matches(with_uid("x"))


def test_any_range_of_an_or_matches() -> None:
    value = fnv1a_64(b"x")
    selector = ShardSelector((ShardRange(UID, 0, 1), ShardRange(UID, value, value + 1)))
    assert selector.matches(with_uid("x"))


def test_selector_matches_namespace_field_not_uid() -> None:
    obj = {"metadata": {"namespace": "team-a", "uid": "other"}}
    assert point_selector(NAMESPACE, fnv1a_64(b"team-a")).matches(obj)
    assert not point_selector(UID, fnv1a_64(b"team-a")).matches(obj)


def test_shard_hash_rejects_unknown_field_path() -> None:
    with pytest.raises(ShardSelectorError, match=r'unsupported field path: "object\.metadata\.name"'):
        shard_hash(with_uid("x"), "object.metadata.name")


def test_selector_rejects_inconsistent_keys() -> None:
    with pytest.raises(ShardSelectorError, match=r'inconsistent shard keys: "object\.metadata\.uid" vs'):
        ShardSelector((ShardRange(UID, 0, 1), ShardRange(NAMESPACE, 1, 2)))


def test_selector_needs_a_range() -> None:
    with pytest.raises(ShardSelectorError, match="empty shard selector"):
        ShardSelector(())


# --- properties -----------------------------------------------------------------------------------------------

cut_points = st.lists(st.integers(min_value=1, max_value=HASH_SPACE_END - 1), max_size=6, unique=True)
uids = st.lists(st.text(max_size=40), max_size=25)


def shards_from(cuts: list[int]) -> list[ShardSelector]:
    bounds = [0, *sorted(cuts), HASH_SPACE_END]
    return [
        parse_shard_selector(f"shardRange(object.metadata.uid, '0x{low:016x}', '0x{high:016x}')")
        for low, high in itertools.pairwise(bounds)
    ]


@given(cut_points, uids)
def test_disjoint_covering_ranges_place_every_object_in_exactly_one_shard(cuts: list[int], names: list[str]) -> None:
    shards = shards_from(cuts)
    objects = [with_uid(name) for name in names]
    for obj in objects:
        assert sum(shard.matches(obj) for shard in shards) == 1
    merged = [obj for shard in shards for obj in objects if shard.matches(obj)]
    assert sorted(obj["metadata"]["uid"] for obj in merged) == sorted(names)


@given(cut_points, st.text(max_size=40))
def test_or_of_all_shards_matches_everything(cuts: list[int], name: str) -> None:
    combined = parse_shard_selector(" || ".join(str(shard) for shard in shards_from(cuts)))
    assert combined.matches(with_uid(name))


@given(st.lists(st.integers(min_value=0, max_value=HASH_SPACE_END), min_size=2, max_size=2, unique=True))
def test_any_valid_range_round_trips(bounds: list[int]) -> None:
    low, high = sorted(bounds)
    selector = ShardSelector((ShardRange(NAMESPACE, low, high),))
    assert parse_shard_selector(str(selector)) == selector
