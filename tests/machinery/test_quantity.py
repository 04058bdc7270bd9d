"""Quantities parse, round, compare and print as upstream's (tables from upstream's quantity tests)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.quantity import Quantity, QuantityError, QuantityFormat, parse_quantity

SI, BIN, EXP = QuantityFormat.DECIMAL_SI, QuantityFormat.BINARY_SI, QuantityFormat.DECIMAL_EXPONENT
MAX = str((1 << 63) - 1)
FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

# (text, exact value, format) from upstream's TestQuantityParse.
PARSED = [
    ("0", "0", SI), ("0n", "0", SI), ("0u", "0", SI), ("0m", "0", SI), ("0Ki", "0", BIN), ("0k", "0", SI),
    ("0Mi", "0", BIN), ("0M", "0", SI), ("0Gi", "0", BIN), ("0G", "0", SI), ("0Ti", "0", BIN), ("0T", "0", SI),
    ("1", "1", SI), ("1Ki", "1024", BIN), ("8Ki", "8192", BIN), ("7Mi", str(7 << 20), BIN),
    ("6Gi", str(6 << 30), BIN), ("5Ti", str(5 << 40), BIN), ("4Pi", str(4 << 50), BIN), ("3Ei", str(3 << 60), BIN),
    ("10Ti", str(10 << 40), BIN), ("100Ti", str(100 << 40), BIN),
    ("5n", "5e-9", SI), ("4u", "4e-6", SI), ("3m", "3e-3", SI), ("9", "9", SI), ("8k", "8e3", SI),
    ("50k", "5e4", SI), ("7M", "7e6", SI), ("6G", "6e9", SI), ("5T", "5e12", SI), ("40T", "4e13", SI),
    ("300T", "3e14", SI), ("2P", "2e15", SI), ("1E", "1e18", SI),
    ("1E-3", "1e-3", EXP), ("1e3", "1e3", EXP), ("1E6", "1e6", EXP), ("1e9", "1e9", EXP), ("1E12", "1e12", EXP),
    ("1e15", "1e15", EXP), ("1E18", "1e18", EXP), ("1e14", "1e14", EXP), ("1e13", "1e13", EXP),
    ("100.035k", "100035", SI),
    ("0.001", "1e-3", SI), ("0.0005k", "0.5", SI), ("0.005", "5e-3", SI), ("0.05", "5e-2", SI), ("0.5", "0.5", SI),
    ("0.00050k", "0.5", SI), ("0.00500", "5e-3", SI), ("0.05000", "5e-2", SI), ("0.50000", "0.5", SI),
    ("0.5e0", "0.5", EXP), ("0.5e-1", "5e-2", EXP), ("0.5e-2", "5e-3", EXP), ("10.035M", "10035e3", SI),
    ("1.2e3", "1200", EXP), ("1.3E+6", "13e5", EXP), ("1.40e9", "14e8", EXP), ("1.53E12", "153e10", EXP),
    ("1.6e15", "16e14", EXP), ("1.7E18", "17e17", EXP),
    ("9.01", "9.01", SI), ("8.1k", "8100", SI), ("7.123456M", "7123456", SI), ("6.987654321G", "6987654321", SI),
    ("5.444T", "5444e9", SI), ("40.1T", "401e11", SI), ("300.2T", "3002e11", SI), ("2.5P", "25e14", SI),
    ("1.01E", "101e16", SI),
    ("3.001n", "4e-9", SI), ("1.1E-9", "2e-9", EXP), ("0.0000000001", "1e-9", SI), ("0.0000000005", "1e-9", SI),
    ("0.00000000050", "1e-9", SI), ("0.5e-9", "1e-9", EXP), ("0.9n", "1e-9", SI), ("0.00000012345", "124e-9", SI),
    ("0.00000012354", "124e-9", SI), ("9Ei", MAX, BIN), ("9223372036854775807Ki", MAX, BIN), ("12E", "12e18", SI),
    ("100.035Ki", "102435.84", BIN), ("0.5Mi", "524288", BIN), ("0.05Gi", "53687091.2", BIN),
    ("0.025Ti", "27487790694.4", BIN),
    ("0.000000000001Ki", "2e-9", SI), (".001", "1e-3", SI), (".0001k", "0.1", SI), ("1.", "1", SI), ("1.G", "1e9", SI),
]  # fmt: skip


@pytest.mark.parametrize(("text", "value", "fmt"), PARSED)
def test_parses_to_upstream_value_and_format(text: str, value: str, fmt: QuantityFormat) -> None:
    quantity = parse_quantity(text)
    assert (quantity.value, quantity.format) == (Decimal(value), fmt)


@pytest.mark.parametrize(("text", "value", "fmt"), PARSED)
def test_negative_parses_to_the_negated_value(text: str, value: str, fmt: QuantityFormat) -> None:
    quantity = parse_quantity("-" + text)
    assert (quantity.value, quantity.format) == (-Decimal(value), fmt)


@pytest.mark.parametrize(("text", "value", "fmt"), PARSED)
def test_explicit_plus_parses_to_the_same_value(text: str, value: str, fmt: QuantityFormat) -> None:
    quantity = parse_quantity("+" + text)
    assert (quantity.value, quantity.format) == (Decimal(value), fmt)


# (exact value, format, canonical text, another spelling of it) from upstream's TestQuantityString.
CANONICAL = [
    (str(1 << 30), BIN, "1Gi", "1024Mi"), (str(300 << 20), BIN, "300Mi", "307200Ki"), (str(6 << 10), BIN, "6Ki", ""),
    (str(1001 << 30), BIN, "1001Gi", "1025024Mi"), (str(1 << 40), BIN, "1Ti", "1024Gi"), ("5", BIN, "5", "5000m"),
    ("0.5", BIN, "500m", "0.5"), ("1e9", SI, "1G", "1000M"), ("1e9", SI, "1G", "0.001T"), ("1e-3", SI, "1m", "1000u"),
    ("0.08", SI, "80m", ""), ("1.08", SI, "1080m", "1.08"), ("1.08", SI, "1080m", "1080000000n"),
    ("300e6", SI, "300M", ""), ("1e12", SI, "1T", ""), ("1234567e6", SI, "1234567M", ""),
    ("1234.567", BIN, "1234567m", ""), ("3e3", SI, "3k", ""), ("1025", BIN, "1025", ""), ("0", SI, "0", ""),
    ("0", BIN, "0", ""), ("1e9", EXP, "1e9", ".001e12"), ("1e-3", EXP, "1e-3", "0.001e0"),
    ("1e-9", EXP, "1e-9", "1000e-12"), ("0.08", EXP, "80e-3", ""), ("300e6", EXP, "300e6", ""),
    ("1e12", EXP, "1e12", ""), ("1e3", EXP, "1e3", ""), ("3e3", EXP, "3e3", ""), ("0", EXP, "0", "00"),
    ("1e-9", SI, "1n", ""), ("80e-9", SI, "80n", ""), ("1080e-9", SI, "1080n", ""), ("1e-6", SI, "1u", ""),
    ("80e-6", SI, "80u", ""), ("1080e-6", SI, "1080u", ""),
]  # fmt: skip


@pytest.mark.parametrize(("value", "fmt", "text", "_"), CANONICAL)
def test_canonical_form_of_a_value(value: str, fmt: QuantityFormat, text: str, _: str) -> None:
    assert Quantity(Decimal(value), fmt).canonical() == text


@pytest.mark.parametrize(("value", "fmt", "text", "_"), [case for case in CANONICAL if Decimal(case[0])])
def test_canonical_form_of_a_negative_value(value: str, fmt: QuantityFormat, text: str, _: str) -> None:
    assert Quantity(-Decimal(value), fmt).canonical() == "-" + text


@pytest.mark.parametrize(("_", "__", "text", "other"), [case for case in CANONICAL if case[3]])
def test_other_spelling_prints_canonically(_: str, __: QuantityFormat, text: str, other: str) -> None:
    assert parse_quantity(other).canonical() == text


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("1Ki", "1Ki"), ("1Mi", "1Mi"), ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1000M", "1G"), (".001Ki", "1024m"),
        (".000001Ki", "1024u"), (".000000001Ki", "1024n"), (".000000000001Ki", "2n"),
        ("1000m", "1"), ("1.5Gi", "1536Mi"), ("0.1", "100m"), ("1024Ki", "1Mi"), ("1e3", "1e3"), ("1.5", "1500m"),
        ("-0", "0"), ("0k", "0"), ("100.035Ki", "102435840m"), ("9Ei", MAX),
    ],
)  # fmt: skip
def test_parse_and_print(text: str, printed: str) -> None:
    assert parse_quantity(text).canonical() == printed
    if parse_quantity(text).value:
        assert parse_quantity("-" + text).canonical() == "-" + printed


@pytest.mark.parametrize("text", ["+1k", "01", "1.500k", "1.G", "1.Ki", "-1Ki"])
def test_text_upstream_keeps_is_served_back_unchanged(text: str) -> None:
    assert parse_quantity(text).canonical() == text


def test_beyond_the_largest_suffix_falls_back_to_an_exponent() -> None:
    assert parse_quantity("1000E").canonical() == "1e21"
    assert parse_quantity("1000E").value == Decimal("1e21")


@pytest.mark.parametrize(("text", "value"), [(".", "0"), ("+", "0"), ("k", "0"), ("Mi", "0"), ("e3", "0")])
def test_numbers_without_digits_read_as_zero(text: str, value: str) -> None:
    assert parse_quantity(text).value == Decimal(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", FORMAT_ERROR), (" 1", FORMAT_ERROR), ("1 ", FORMAT_ERROR), ("1.1.M", FORMAT_ERROR),
        ("1+1.0M", FORMAT_ERROR), ("0.1am", FORMAT_ERROR), ("aoeu", FORMAT_ERROR), ("\uff11", FORMAT_ERROR),
        ("0.1mi", "unable to parse quantity's suffix"), (".5i", "unable to parse quantity's suffix"),
        ("1i", "unable to parse quantity's suffix"), ("-3.01i", "unable to parse quantity's suffix"),
        ("-3.01e-", "unable to parse quantity's suffix"), ("1e", "unable to parse quantity's suffix"),
        (".e-10", "unable to parse numeric part of quantity"), ("Pi", "unable to parse numeric part of quantity"),
    ],
)  # fmt: skip
def test_rejects_with_upstream_message(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert str(caught.value) == message


def test_quantity_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="quantities must match"):
        parse_quantity("x")


def test_huge_exponents_stay_cheap() -> None:
    assert parse_quantity("1e1000000").canonical() == "10e999999"
    assert parse_quantity("1e-2000000000").canonical() == "1e-9"


def test_comparison_is_by_value() -> None:
    assert parse_quantity("1Gi") > parse_quantity("1G")
    assert parse_quantity("1000m") == parse_quantity("1")
    assert parse_quantity("500m") < parse_quantity("1") <= parse_quantity("1e0")
    assert hash(parse_quantity("1k")) == hash(parse_quantity("1000"))
    assert max(parse_quantity("2"), parse_quantity("1500m")).canonical() == "2"


def test_str_is_the_canonical_form() -> None:
    assert str(parse_quantity("1024Ki")) == "1Mi"


_NUMBERS = st.one_of(
    st.from_regex(r"[0-9]{1,20}", fullmatch=True),
    st.from_regex(r"[0-9]{0,12}\.[0-9]{1,14}", fullmatch=True),
    st.from_regex(r"[0-9]{1,12}\.", fullmatch=True),
)
_SUFFIXES = st.one_of(
    st.sampled_from(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]),
    st.builds(lambda e, sign: f"e{sign}{e}", st.integers(0, 40), st.sampled_from(["", "+", "-"])),
)
_QUANTITIES = st.builds(
    lambda sign, number, suffix: sign + number + suffix, st.sampled_from(["", "+", "-"]), _NUMBERS, _SUFFIXES
)


@given(_QUANTITIES)
def test_canonical_form_is_idempotent_and_keeps_the_value(text: str) -> None:
    quantity = parse_quantity(text)
    again = parse_quantity(quantity.canonical())
    assert again.canonical() == quantity.canonical()
    assert again.value == quantity.value
