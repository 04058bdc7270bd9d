"""From flags and the svcconfig file to an authenticated REST client (upstream's loading rules).

The file is `--svcconfig`, else the first existing path of `$SVCCONFIG` (colon-separated), else
`~/.svc/config`; flags override what the chosen context says.
"""

from __future__ import annotations

import dataclasses
import os
import platform
from pathlib import Path
from urllib.parse import quote

from svc.api.brand import SVC
from svc.cli.errors import CliError
from svc.cli.flags import ClientFlags
from svc.client.kubeconfig import ClientConfig, KubeconfigError, load_kubeconfig
from svc.client.rest import RestClient
from svc.version import GIT_VERSION

USER_AGENT = f"svcctl/{GIT_VERSION} ({platform.system().lower()}/{platform.machine()})"


def config_path(flags: ClientFlags) -> Path | None:
    if flags.svcconfig:
        path = Path(flags.svcconfig)
        if not path.exists():
            raise CliError(f"stat {path}: no such file or directory")
        return path
    for entry in os.environ.get(SVC.config_env_var, "").split(os.pathsep):
        if entry and Path(entry).exists():
            return Path(entry)
    default = Path.home() / SVC.config_default_dir / "config"
    return default if default.exists() else None


_INLINE = {"cert_file": "cert_data", "key_file": "key_data", "ca_file": "ca_data"}


def resolve(flags: ClientFlags) -> tuple[ClientConfig, str]:
    """The connection settings and the namespace for a command."""
    path = config_path(flags)
    config = ClientConfig(server="")
    if path is not None:
        try:
            config = load_kubeconfig(path, context=flags.context, cluster=flags.cluster, user=flags.user)
        except KubeconfigError as error:
            if not flags.server:
                raise CliError(str(error)) from None
    overrides = {
        "server": flags.server,
        "token": flags.token,
        "username": flags.username,
        "password": flags.password,
        "cert_file": flags.client_certificate,
        "key_file": flags.client_key,
        "ca_file": flags.certificate_authority,
        "tls_server_name": flags.tls_server_name,
    }
    given = {key: value for key, value in overrides.items() if value}
    # A file named on the command line replaces the kubeconfig's inline data for the same credential.
    given.update({_INLINE[key]: b"" for key in given.keys() & _INLINE.keys()})
    config = dataclasses.replace(config, **given)
    if flags.insecure_skip_tls_verify:
        config = dataclasses.replace(config, insecure=True, ca_file="", ca_data=b"")
    if not config.server:
        raise CliError(
            "no server to talk to: give --server, or a svcconfig file with --svcconfig, "
            f"${SVC.config_env_var} or ~/{SVC.config_default_dir}/config"
        )
    return config, flags.namespace or config.namespace or "default"


def headers(flags: ClientFlags) -> dict[str, str]:
    result = {"User-Agent": USER_AGENT}
    if not flags.disable_compression:
        result["Accept-Encoding"] = "gzip"
    if flags.as_user:
        result["Impersonate-User"] = flags.as_user
    if flags.as_uid:
        result["Impersonate-Uid"] = flags.as_uid
    return result


def impersonation_extras(flags: ClientFlags) -> list[tuple[str, str]]:
    """Repeatable impersonation headers (groups, extras) as (name, value) pairs."""
    pairs = [("Impersonate-Group", group) for group in flags.as_groups]
    for entry in flags.as_user_extra:
        key, sep, value = entry.partition("=")
        if not sep or not key:
            raise CliError(f'invalid --as-user-extra "{entry}": expected key=value')
        pairs.append((f"Impersonate-Extra-{quote(key, safe='')}", value))
    return pairs


def connect(flags: ClientFlags) -> tuple[RestClient, str]:
    if (flags.as_groups or flags.as_uid or flags.as_user_extra) and not flags.as_user:
        raise CliError("requested group impersonation without impersonating a user")
    config, namespace = resolve(flags)
    try:
        client = RestClient(
            config,
            timeout=flags.request_timeout or None,
            headers=headers(flags),
            extra_headers=impersonation_extras(flags),
        )
    except (OSError, ValueError) as error:
        raise CliError(f"unable to set up the connection: {error}") from None
    return client, namespace
