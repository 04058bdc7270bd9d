"""Kubernetes' CEL libraries, checked with the examples and error texts upstream documents
(k8s.io/apiserver pkg/cel/library: lists.go, regex.go, urls.go, quantity.go, ip.go, cidr.go, semver)."""

from __future__ import annotations

from typing import Any

import pytest

from svc.machinery.cel import CelError, Environment

ENV = Environment(["self"])


def evaluate(expression: str) -> Any:
    return ENV.compile(expression).evaluate({})


EXAMPLES = [
    # lists
    ("[1, 2, 3].isSorted()", True),
    ("['a', 'b', 'b', 'c'].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[duration('1m'), duration('1s')].sum() == duration('1m1s')", True),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[1].min()", 1),
    ("([0] + []).min()", 0),
    ("[1, 2, 2, 3].indexOf(2)", 1),
    ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2),
    ("[1.0].indexOf(1.1)", -1),
    ("[].indexOf('string')", -1),
    ("[1, 2, 3].includes(2)", True),
    ("[1, 2, 3].includes(4)", False),
    ("'model-a'.includes('model-a')", True),
    ("'model-a'.includes('model-b')", False),
    # regex
    ("'abc 123'.find('[0-9]+')", "123"),
    ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'123 abc 456'.findAll('xyz')", []),
    # urls
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True),
    ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False),
    ("isURL('../relative-path')", False),
    ("url('/path').getScheme()", ""),
    ("url('https://example.com/').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"),
    ("url('https://example.com/').getHost()", "example.com"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"),
    ("url('https://[::1]/').getHost()", "[::1]"),
    ("url('/path').getHost()", ""),
    ("url('https://example.com:80/').getHostname()", "example.com"),
    ("url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('/path').getHostname()", ""),
    ("url('https://example.com:80/').getPort()", "80"),
    ("url('https://example.com/').getPort()", ""),
    ("url('/path').getPort()", ""),
    ("url('https://example.com/path').getEscapedPath()", "/path"),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", {"k1": ["a"], "k2": ["b", "c"]}),
    ("url('https://example.com/path?').getQuery()", {}),
    ("url('https://example.com/path').getQuery()", {}),
    # quantity
    ("isQuantity('1.3G')", True),
    ("isQuantity('1.3Gi')", True),
    ("isQuantity('1,3G')", False),
    ("isQuantity('10000k')", True),
    ("isQuantity('200K')", False),
    ("isQuantity('Three')", False),
    ("quantity('50000000G').isInteger()", True),
    ("quantity('50k').isInteger()", True),
    ("quantity('9999999999999999999999999999999999999G').isInteger()", False),
    ("quantity('50k').asInteger() == 50000", True),
    ("quantity('50k').sub(20000).asApproximateFloat() == 30000.0", True),
    ("quantity('50k').add(quantity('20k')) == quantity('70k')", True),
    ("quantity('50k').add(20) == quantity('50020')", True),
    ("quantity('50k').sub(quantity('20k')) == quantity('30k')", True),
    ("quantity('50k').sub(20000) == quantity('30k')", True),
    ("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", True),
    ("quantity('200M').compareTo(quantity('0.2G'))", 0),
    ("quantity('50M').compareTo(quantity('50Mi'))", -1),
    ("quantity('50Mi').compareTo(quantity('50M'))", 1),
    ("quantity('150Mi').isGreaterThan(quantity('100Mi'))", True),
    ("quantity('50Mi').isGreaterThan(quantity('100Mi'))", False),
    ("quantity('50M').isLessThan(quantity('100M'))", True),
    ("quantity('100M').isLessThan(quantity('50M'))", False),
    ("sign(quantity('-1'))", -1),
    # ip and cidr
    ("isIP('192.168.0.1')", True),
    ("isIP('192.168.0.1.0')", False),
    ("ip.isCanonical('127.0.0.1')", True),
    ("ip.isCanonical('2001:DB8::68')", False),
    ("string(ip('2001:db8::68'))", "2001:db8::68"),
    ("ip('192.168.0.1').family()", 4),
    ("ip('2001:db8::68').family()", 6),
    ("ip('0.0.0.0').isUnspecified()", True),
    ("ip('127.0.0.1').isLoopback()", True),
    ("ip('224.0.0.1').isLinkLocalMulticast()", True),
    ("ip('169.254.169.254').isLinkLocalUnicast()", True),
    ("ip('192.168.0.1').isGlobalUnicast()", True),
    ("ip('255.255.255.255').isGlobalUnicast()", False),
    ("isCIDR('192.168.0.0/16')", True),
    ("isCIDR('192.168.0.0')", False),
    ("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", True),
    ("cidr('192.168.0.0/24').containsIP('192.168.1.1')", False),
    ("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", True),
    ("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')", False),
    ("cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", True),
    ("string(cidr('192.168.0.1/24').masked())", "192.168.0.0/24"),
    ("cidr('192.168.0.0/16').prefixLength()", 16),
    ("type(ip('::1')) == net.IP", True),
    # semver
    ("isSemver('1.0.0')", True),
    ("isSemver('v1.0')", False),
    ("isSemver('v1.0', true)", True),
    ("semver('1.2.3').major()", 1),
    ("semver('1.2.3').minor()", 2),
    ("semver('1.2.3').patch()", 3),
    ("semver('1.0.0').isGreaterThan(semver('0.1.0'))", True),
    ("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", True),
    ("semver('1.0.0').compareTo(semver('1.0.0'))", 0),
    ("semver('1.0.0-rc.1').compareTo(semver('1.0.0-rc.10'))", -1),
    ("semver('v01.01', true) == semver('1.1.0')", True),
]


@pytest.mark.parametrize(("expression", "expected"), EXAMPLES)
def test_documented_example(expression: str, expected: Any) -> None:
    got = evaluate(expression)
    assert got == expected and type(got) is type(expected)


ERRORS = [
    ("[].min()", "min called on empty list"),
    ("[].max()", "max called on empty list"),
    ("'abc'.find('[' + '')", "Illegal regex: error parsing regexp: missing closing ]: `[`"),
    ("url('https://a:b:c/')", "URL parse error during conversion from string: "),
    ("url('../relative-path')", "URL parse error during conversion from string: "),
    ("quantity('200K')", "unable to parse quantity's suffix"),
    ("quantity('Three')", "quantities must match the regular expression"),
    ("quantity('9999999999999999999999999999999999999G').asInteger()", "cannot convert value to integer"),
    ("quantity('1').div(0)", "division by zero error"),
    ("ip('192.168.0.1.0')", "IP Address '192.168.0.1.0' parse error during conversion from string"),
    ("ip('fe80::1%en0')", "IP Address with zone value is not allowed"),
    ("ip('::ffff:192.168.0.1')", "IPv4-mapped IPv6 address is not allowed"),
]


@pytest.mark.parametrize(("expression", "message"), ERRORS)
def test_documented_error(expression: str, message: str) -> None:
    with pytest.raises(CelError) as caught:
        evaluate(expression)
    assert str(caught.value).startswith(message)


FORMAT_EXAMPLES = [
    "format.dns1123Label().validate('my-label-name')",
    "format.dns1123Subdomain().validate('apiextensions.k8s.io')",
    "format.dns1035Label().validate('my-label-name')",
    "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')",
    "format.dns1123LabelPrefix().validate('my-label-prefix-')",
    "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')",
    "format.dns1035LabelPrefix().validate('my-label-prefix-')",
    "format.uri().validate('http://example.com')",
    "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')",
    "format.byte().validate('aGVsbG8=')",
    "format.date().validate('2021-01-01')",
    "format.datetime().validate('2021-01-01T00:00:00Z')",
    "format.named('labelValue').value().validate('a-value')",
]


@pytest.mark.parametrize("expression", FORMAT_EXAMPLES)
def test_documented_format_example_is_valid(expression: str) -> None:
    assert evaluate(f"{expression} == optional.none()") is True


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("format.dns1123Label().validate('My_Label')", "a lowercase RFC 1123 label must consist of"),
        ("format.uuid().validate('nope')", "does not match the UUID format"),
        ("format.byte().validate('***')", "invalid base64"),
        ("format.date().validate('2021-13-01')", "invalid date"),
        ("format.datetime().validate('yesterday')", "invalid datetime"),
        ("format.uri().validate('../relative-path')", 'parse "../relative-path": invalid URI for request'),
    ],
)
def test_format_validation_gives_upstreams_messages(expression: str, message: str) -> None:
    (error,) = evaluate(f"{expression}.value()")
    assert error.startswith(message)


def test_an_unknown_format_name_is_none() -> None:
    assert evaluate("format.named('nope').hasValue()") is False
