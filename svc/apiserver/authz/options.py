"""Authorization flags: the mode list, the ABAC policy file, the webhook and `--authorization-config`.

Checked as upstream checks them, with its messages: each mode's file is given and only with its mode,
and the structured configuration excludes the mode and webhook flags. Files are read here so a bad
one stops the server at start with one line.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from svc.api.brand import Profile
from svc.apiserver.authz.abac import load_policy_file
from svc.apiserver.authz.config import AuthorizerEntry, load_authorization_config
from svc.apiserver.authz.webhook import VERSIONS
from svc.apiserver.webhook_kubeconfig import load_webhook_kubeconfig
from svc.machinery.duration import parse_duration

MODES = ("AlwaysAllow", "AlwaysDeny", "ABAC", "Node", "RBAC", "Webhook")
IN_CLUSTER_UNAVAILABLE = (
    "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"
)
"""client-go's answer outside a cluster: this server never runs as a pod, so InClusterConfig cannot work."""
_CONFIG_EXCLUDES = (
    "authorization-mode",
    "authorization-webhook-config-file",
    "authorization-webhook-version",
    "authorization-webhook-cache-authorized-ttl",
    "authorization-webhook-cache-unauthorized-ttl",
)


@dataclass
class AuthorizationOptions:
    modes: list[str] = field(default_factory=lambda: ["AlwaysAllow"])
    policy_file: str = ""
    webhook_config_file: str = ""
    webhook_version: str = "v1beta1"
    webhook_authorized_ttl: float = 300.0
    webhook_unauthorized_ttl: float = 30.0
    config_file: str = ""
    config: tuple[AuthorizerEntry, ...] = ()
    """The authorizers of `config_file` as read at start (reloads read the file again)."""


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--authorization-mode",
        type=_list,
        help="ordered authorizers: " + ", ".join(MODES) + " (default AlwaysAllow)",
    )
    add("--authorization-policy-file", help="ABAC policies, one JSON object a line, used with mode ABAC")
    add(
        "--authorization-webhook-config-file",
        help="kubeconfig naming the remote SubjectAccessReview service, used with mode Webhook",
    )
    add("--authorization-webhook-version", help="SubjectAccessReview version sent and expected (default v1beta1)")
    add("--authorization-webhook-cache-authorized-ttl", help="how long allowed answers are cached (default 5m0s)")
    add("--authorization-webhook-cache-unauthorized-ttl", help="how long other answers are cached (default 30s)")
    add(
        "--authorization-config",
        help="AuthorizationConfiguration file (ordered authorizers, webhooks with CEL match conditions); "
        "reloaded when it changes; excludes --authorization-mode and the webhook flags",
    )


def from_args(args: argparse.Namespace, profile: Profile) -> AuthorizationOptions:
    """The options the flags give; ValueError with upstream's message on bad input."""
    options = AuthorizationOptions()
    if args.authorization_policy_file:
        options.policy_file = args.authorization_policy_file
    if args.authorization_config:
        for flag in _CONFIG_EXCLUDES:
            if getattr(args, flag.replace("-", "_")) is not None:
                raise ValueError(f"--{flag} can not be specified when --authorization-config flag is set")
        options.config_file = args.authorization_config
        options.config = load_authorization_config(options.config_file, profile)
        options.modes = [entry.type for entry in options.config]
        for entry in options.config:
            if entry.webhook is None:
                continue
            if entry.webhook.connection != "KubeConfigFile":
                raise ValueError(IN_CLUSTER_UNAVAILABLE)
            _load_kubeconfig(entry.webhook.kubeconfig_file)
        _check_policy_file(options)
        return options
    if args.authorization_mode is not None:
        for index, mode in enumerate(args.authorization_mode):
            if mode not in MODES:
                raise ValueError(f'authorization-mode "{mode}" is not a valid mode (supported: {", ".join(MODES)})')
            if mode in args.authorization_mode[:index]:
                raise ValueError(f'authorization-mode "{mode}" has mode specified more than once')
        options.modes = args.authorization_mode
    if args.authorization_webhook_config_file:
        options.webhook_config_file = args.authorization_webhook_config_file
    if args.authorization_webhook_version is not None:
        if args.authorization_webhook_version not in VERSIONS:
            raise ValueError(
                f'invalid authorization webhook version "{args.authorization_webhook_version}": '
                'supported values: "v1", "v1beta1"'
            )
        options.webhook_version = args.authorization_webhook_version
    for name in ("authorized", "unauthorized"):
        text = getattr(args, f"authorization_webhook_cache_{name}_ttl")
        if text is not None:
            try:
                seconds = parse_duration(text)
            except ValueError as error:
                raise ValueError(
                    f'invalid argument "{text}" for "--authorization-webhook-cache-{name}-ttl" flag: {error}'
                ) from None
            setattr(options, f"webhook_{name}_ttl", seconds)
    _check_policy_file(options)
    if "Webhook" in options.modes:
        if not options.webhook_config_file:
            raise ValueError("authorization-mode Webhook's authorization config file not passed")
        _load_kubeconfig(options.webhook_config_file)
    elif options.webhook_config_file:
        raise ValueError("cannot specify --authorization-webhook-config-file without mode Webhook")
    return options


def _check_policy_file(options: AuthorizationOptions) -> None:
    if "ABAC" in options.modes:
        if not options.policy_file:
            raise ValueError("authorization-mode ABAC's authorization policy file not passed")
        load_policy_file(options.policy_file)
    elif options.policy_file:
        raise ValueError("cannot specify --authorization-policy-file without mode ABAC")


def _load_kubeconfig(path: str) -> None:
    try:
        load_webhook_kubeconfig(path)
    except ValueError as error:
        raise ValueError(f"invalid authorization webhook config file {path}: {error}") from None
