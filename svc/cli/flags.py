"""The client options every svcctl command inherits (spec 3 §1.2, second table), as argparse flags.

Flags that are absent stay absent (`argparse.SUPPRESS`), so a flag given before the command and one
given after it never overwrite each other, and the preferences file can fill in what is missing.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from svc.machinery.duration import parse_duration
from svc.machinery.gotext import parse_bool

PROFILES = ("none", "cpu", "heap", "goroutine", "threadcreate", "block", "mutex", "trace")
PREFERENCES_FLAG = "--svcrc"


@dataclass
class ClientFlags:
    server: str = ""
    namespace: str = ""
    svcconfig: str = ""
    cluster: str = ""
    context: str = ""
    user: str = ""
    token: str = ""
    username: str = ""
    password: str = ""
    client_certificate: str = ""
    client_key: str = ""
    certificate_authority: str = ""
    tls_server_name: str = ""
    insecure_skip_tls_verify: bool = False
    as_user: str = ""
    as_groups: list[str] = field(default_factory=list)
    as_uid: str = ""
    as_user_extra: list[str] = field(default_factory=list)
    cache_dir: str = ""
    disable_compression: bool = False
    match_server_version: bool = False
    request_timeout: float = 0.0
    warnings_as_errors: bool = False
    svcrc: str = ""
    profile: str = "none"
    profile_output: str = "profile.pprof"


def parse_request_timeout(text: str) -> float:
    message = (
        "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
        "corresponding time unit (e.g. 1s | 2m | 3h)"
    )
    if text.isdigit():
        return float(text)
    try:
        return parse_duration(text)
    except ValueError:
        raise argparse.ArgumentTypeError(message) from None


def bool_flag(text: str) -> bool:
    try:
        return parse_bool(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f'invalid argument "{text}": {error}') from None


BARE_VALUES: dict[str, str] = {}
"""Flags whose value is optional, with the value a bare flag means. Like upstream's, they take a value
only as `--flag=value`, never as the next word."""


def add_bool(parser: argparse.ArgumentParser, name: str, **kwargs: object) -> None:
    add_optional_value(parser, name, "true", type=bool_flag, **kwargs)


def add_optional_value(parser: argparse.ArgumentParser, name: str, bare: str, **kwargs: object) -> None:
    BARE_VALUES[name] = bare
    parser.add_argument(name, **kwargs)  # type: ignore[arg-type]


def normalize_bare_flags(argv: list[str]) -> list[str]:
    """Spell bare optional-value flags `--flag=<bare value>` so argparse never takes the next word."""
    return [f"{arg}={BARE_VALUES[arg]}" if arg in BARE_VALUES else arg for arg in argv]


def add_client_flags(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    hide = argparse.SUPPRESS
    add("-s", "--server", default=hide, help="the address and port of the API server")
    add("-n", "--namespace", default=hide, help="the namespace scope for this request")
    add("--svcconfig", default=hide, help="path to the svcconfig file to use for requests")
    add("--cluster", default=hide, help="the name of the svcconfig cluster to use")
    add("--context", default=hide, help="the name of the svcconfig context to use")
    add("--user", default=hide, help="the name of the svcconfig user to use")
    add("--token", default=hide, help="bearer token for authentication to the API server")
    add("--username", default=hide, help="username for basic authentication to the API server")
    add("--password", default=hide, help="password for basic authentication to the API server")
    add("--client-certificate", default=hide, help="path to a client certificate file for TLS")
    add("--client-key", default=hide, help="path to a client key file for TLS")
    add("--certificate-authority", default=hide, help="path to a cert file for the certificate authority")
    add("--tls-server-name", default=hide, help="server name to use for server certificate validation")
    add_bool(
        parser, "--insecure-skip-tls-verify", default=hide, help="do not check the server's certificate for validity"
    )
    add("--as", dest="as_user", default=hide, help="username to impersonate for the operation")
    add("--as-group", dest="as_groups", action="append", default=hide, help="group to impersonate (repeatable)")
    add("--as-uid", default=hide, help="UID to impersonate for the operation")
    add("--as-user-extra", action="append", default=hide, help="user extra to impersonate, key=value (repeatable)")
    add("--cache-dir", default=hide, help="default cache directory (default $HOME/.svc/cache)")
    add_bool(
        parser,
        "--disable-compression",
        default=hide,
        help="opt out of response compression for all requests to the server",
    )
    add_bool(
        parser, "--match-server-version", default=hide, help="require the server version to match the client version"
    )
    add(
        "--request-timeout",
        type=parse_request_timeout,
        default=hide,
        help="time to wait before giving up on a single request; 0 means no timeout (e.g. 1s, 2m, 3h)",
    )
    add_bool(
        parser,
        "--warnings-as-errors",
        default=hide,
        help="treat warnings received from the server as errors and exit with a non-zero code",
    )
    add(PREFERENCES_FLAG, dest="svcrc", default=hide, help="path to the svcrc preferences file (SVCRC=off disables it)")
    add("--profile", choices=PROFILES, default=hide, help="name of the profile to capture")
    add("--profile-output", default=hide, help="name of the file to write the profile to (default profile.pprof)")


def client_flags(namespace: argparse.Namespace) -> ClientFlags:
    flags = ClientFlags()
    for name in vars(flags):
        if hasattr(namespace, name):
            setattr(flags, name, getattr(namespace, name))
    return flags
