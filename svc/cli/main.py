"""`svcctl`: the command-line client. Today it has one command, `create quota` (spec 3 §1.2)."""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from typing import NoReturn

from svc.cli import connection, preferences
from svc.cli.commands import create_quota
from svc.cli.errors import CliError, ServerError
from svc.cli.flags import ClientFlags, add_client_flags, client_flags, normalize_bare_flags
from svc.cli.output import parse_output, render
from svc.cli.profiling import profiled
from svc.client.rest import RestClient
from svc.version import GIT_VERSION

PROGRAM = "svcctl"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}\nSee '{self.prog} --help' for usage.")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROGRAM, description="svcctl controls the svc control plane.", allow_abbrev=False)
    parser.add_argument(
        "--version", nargs="?", const="true", default=argparse.SUPPRESS, help="print the client version"
    )
    add_client_flags(parser)
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    create = commands.add_parser("create", help="create a resource", allow_abbrev=False)
    add_client_flags(create)
    kinds = create.add_subparsers(dest="kind", parser_class=_Parser)
    quota = kinds.add_parser(
        "quota", aliases=["resourcequota"], help="create a resource quota with the given name", allow_abbrev=False
    )
    add_client_flags(quota)
    create_quota.add_arguments(quota)
    return parser


def _check_server_version(client: RestClient) -> None:
    response = client.request("GET", "/version")
    version = response.json().get("gitVersion", "") if response.status == 200 else ""
    if version != GIT_VERSION:
        raise CliError(f"server version ({version}) differs from client version ({GIT_VERSION})!")


_WARNING = re.compile(r'^\d{3} \S+ "((?:[^"\\]|\\.)*)"')


def warning_text(header: str) -> str:
    """The message of an RFC 7234 `Warning` header value (`299 - "text"`), unescaped."""
    match = _WARNING.match(header)
    if match is None:
        return header
    return re.sub(r"\\(.)", r"\1", match.group(1))


def _warn(warnings: list[str], flags: ClientFlags) -> None:
    for warning in warnings:
        print(f"Warning: {warning_text(warning)}", file=sys.stderr)
    if flags.warnings_as_errors and warnings:
        count = len(warnings)
        raise CliError(f"{count} warning{'s' if count > 1 else ''} received")


def run_create_quota(args: argparse.Namespace, flags: ClientFlags) -> None:
    if len(args.name) != 1:
        raise CliError(
            f"exactly one NAME is required, got {len(args.name)}\nSee '{PROGRAM} create quota -h' for help and examples"
        )
    dry_run = create_quota.dry_run_mode(args.dry_run)
    if args.dry_run == create_quota.BARE_DRY_RUN:
        print("Warning: --dry-run is deprecated and can be replaced with --dry-run=client.", file=sys.stderr)
    level = create_quota.validation_level(args.validate)
    output = parse_output(args.output, args.template, args.allow_missing_template_keys, args.show_managed_fields)
    hard = create_quota.parse_hard(args.hard)
    scopes = create_quota.parse_scopes(args.scopes)
    name = args.name[0]
    if dry_run == "client":
        obj = create_quota.build_quota(name, flags.namespace or None, hard, scopes)
        if args.save_config:
            create_quota.save_config(obj)
        sys.stdout.write(
            render(obj, output, resource="resourcequota")
            if output.format
            else create_quota.describe(obj, dry_run, output)
        )
        return
    client, namespace = connection.connect(flags)
    try:
        if flags.match_server_version:
            _check_server_version(client)
        obj = create_quota.build_quota(name, namespace, hard, scopes)
        if args.save_config:
            create_quota.save_config(obj)
        params = {"fieldManager": args.field_manager, "fieldValidation": level}
        if dry_run == "server":
            params["dryRun"] = "All"
        try:
            response = client.request("POST", f"/api/v1/namespaces/{namespace}/resourcequotas", body=obj, params=params)
        except ConnectionRefusedError:
            host = client.config.server.split("://", 1)[-1]
            raise CliError(
                f"The connection to the server {host} was refused - did you specify the right host or port?"
            ) from None
        _warn(response.warnings, flags)
        body = response.json() if response.body else {}
        if response.status >= 400:
            raise ServerError(body, response.status)
    finally:
        client.close()
    sys.stdout.write(
        render(body, output, resource="resourcequota")
        if output.format
        else create_quota.describe(body, dry_run, output)
    )


def _apply_preferences(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """Defaults from the svcrc file go before the command line, which therefore wins."""
    path = ""
    for index, arg in enumerate(argv):
        if arg.startswith("--svcrc="):
            path = arg.split("=", 1)[1]
        elif arg == "--svcrc" and index + 1 < len(argv):
            path = argv[index + 1]
    command = "create quota" if "create" in argv and ("quota" in argv or "resourcequota" in argv) else ""
    defaults = preferences.load_defaults(path, command) if command else {}
    given = {arg.split("=", 1)[0].lstrip("-") for arg in argv if arg.startswith("-")}
    extra = [f"--{name}={value}" for name, value in defaults.items() if name not in given]
    return argv + extra if extra else argv


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        if not arguments:
            parser.print_help()
            return
        args = parser.parse_args(normalize_bare_flags(_apply_preferences(parser, arguments)))
        if hasattr(args, "version"):
            print(f"Client Version: {GIT_VERSION}")
            return
        flags = client_flags(args)
        if args.command != "create" or getattr(args, "kind", None) not in ("quota", "resourcequota"):
            parser.print_help()
            return
        with profiled(flags.profile, flags.profile_output) if flags.profile != "none" else contextlib.nullcontext():
            run_create_quota(args, flags)
    except CliError as error:
        sys.stdout.write(error.stdout)
        message = str(error)
        print(message if message.startswith("Error from server") else f"error: {message}", file=sys.stderr)
        raise SystemExit(1) from None
    except OSError as error:
        print(f"error: unable to connect to the server: {error}", file=sys.stderr)
        raise SystemExit(1) from None
