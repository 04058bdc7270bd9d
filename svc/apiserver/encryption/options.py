"""`--encryption-provider-config` and `--encryption-provider-config-automatic-reload`. The file is
read and validated here, so a bad one stops the server at start with one line (exit 2)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from svc.api.brand import Profile
from svc.machinery.gotext import parse_bool
from svc.storage.encryption.config import ResourceConfig, load_encryption_config


@dataclass
class EncryptionOptions:
    config_file: str = ""
    automatic_reload: bool = False
    config: tuple[ResourceConfig, ...] = ()
    config_bytes: bytes = b""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--encryption-provider-config", help="file with the EncryptionConfiguration of the resources stored encrypted")
    add(
        "--encryption-provider-config-automatic-reload",
        nargs="?",
        const="true",
        help="reload the encryption configuration when the file changes (default false)",
    )


def from_args(args: argparse.Namespace, profile: Profile) -> EncryptionOptions:
    options = EncryptionOptions()
    reload = args.encryption_provider_config_automatic_reload
    if reload is not None:
        try:
            options.automatic_reload = parse_bool(reload)
        except ValueError as error:
            raise ValueError(
                f'invalid argument "{reload}" for "--encryption-provider-config-automatic-reload" flag: {error}'
            ) from None
    if args.encryption_provider_config:
        options.config_file = args.encryption_provider_config
        options.config, options.config_bytes = load_encryption_config(options.config_file, profile)
    elif options.automatic_reload:
        raise ValueError("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config")
    return options
