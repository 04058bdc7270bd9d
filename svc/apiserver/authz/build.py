"""The server's authorizer chain built from the authorization options, and kept current.

With `--authorization-mode` the chain is fixed at start. With `--authorization-config` the file is
polled; when its bytes change it is read and validated again and, if good, a new chain (new webhook
clients, empty caches) replaces the old one for the next request; a bad file is logged and the old
chain stays. Each attempt is counted in upstream's reload metrics
(`apiserver_authorization_config_controller_automatic_reloads_total` and
`..._automatic_reload_last_timestamp_seconds`, by status and the hashed API server identity).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import yaml
from prometheus_client import CollectorRegistry

from svc.api.brand import Profile
from svc.apiserver.authz.abac import AbacAuthorizer, load_policy_file
from svc.apiserver.authz.authorizer import Attributes, Authorizer, Decision, Union, Verdict
from svc.apiserver.authz.config import AuthorizerEntry, parse_authorization_config
from svc.apiserver.authz.metrics import AuthorizationMetrics
from svc.apiserver.authz.modes import RuleResolver, Rules, build_authorizer, build_rule_resolver
from svc.apiserver.authz.options import IN_CLUSTER_UNAVAILABLE, AuthorizationOptions
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.apiserver.authz.webhook import WebhookAuthorizer, WebhookSettings
from svc.apiserver.config_reload_metrics import ReloadMetrics, read_if_changed
from svc.apiserver.webhook_kubeconfig import KubeconfigWebhook, load_webhook_kubeconfig
from svc.registry.admission import UserInfo

log = logging.getLogger(__name__)

RELOAD_INTERVAL = 60.0
"""How often the configuration file is checked (upstream: once a minute)."""


class Authorization:
    """The chain the filters ask (`authorize`) and the rules review lists (`rules_for`)."""

    def __init__(
        self,
        options: AuthorizationOptions,
        *,
        profile: Profile,
        rbac: Authorizer,
        rbac_index: PolicyIndex,
        node: Authorizer | None,
        registry: CollectorRegistry,
    ) -> None:
        self._options = options
        self._profile = profile
        self._rbac = rbac
        self._rbac_index = rbac_index
        self._node = node
        self._abac = AbacAuthorizer(load_policy_file(options.policy_file)) if "ABAC" in options.modes else None
        self._metrics = ReloadMetrics(registry, "authorization") if options.config_file else None
        self.metrics = AuthorizationMetrics(registry)
        self._file_bytes = Path(options.config_file).read_bytes() if options.config_file else b""
        self.reload_interval = RELOAD_INTERVAL
        self.webhooks: list[WebhookAuthorizer] = []
        self._union, self._rules = self._build(self._entries(options))

    def _entries(self, options: AuthorizationOptions) -> tuple[AuthorizerEntry, ...]:
        if options.config:
            return options.config
        return tuple(AuthorizerEntry(mode, mode.lower()) for mode in options.modes)

    def _build(self, entries: tuple[AuthorizerEntry, ...]) -> tuple[Union, RuleResolver]:
        modes = [entry.type for entry in entries]
        if "Node" in modes and self._node is None:
            raise ValueError("the Node authorizer can only be added to a server started with it")
        if "ABAC" in modes and self._abac is None:
            raise ValueError("the ABAC authorizer can only be added to a server started with it")
        webhooks = [self._webhook(entry) for entry in entries if entry.type == "Webhook"]
        # Position 0 of the chain is the system:masters short cut, which upstream does not count.
        labels = [("", ""), *((entry.type, entry.name) for entry in entries)]

        def record(position: int, decision: Decision) -> None:
            if position:
                self.metrics.record_decision(*labels[position], decision)

        union = build_authorizer(
            modes, rbac=self._rbac, node=self._node, abac=self._abac, webhooks=webhooks, recorder=record
        )
        rules = build_rule_resolver(modes, rbac=self._rbac_index, abac=self._abac)
        self.webhooks = webhooks
        return union, rules

    def _webhook(self, entry: AuthorizerEntry) -> WebhookAuthorizer:
        if entry.webhook is None:
            options = self._options
            config = load_webhook_kubeconfig(options.webhook_config_file)
            settings = WebhookSettings(
                version=options.webhook_version,
                authorized_ttl=options.webhook_authorized_ttl,
                unauthorized_ttl=options.webhook_unauthorized_ttl,
            )
            return WebhookAuthorizer(KubeconfigWebhook(config), settings, profile=self._profile, metrics=self.metrics)
        if entry.webhook.connection != "KubeConfigFile":
            raise ValueError(IN_CLUSTER_UNAVAILABLE)
        config = load_webhook_kubeconfig(entry.webhook.kubeconfig_file)
        client = KubeconfigWebhook(config, timeout=entry.webhook.timeout)
        return WebhookAuthorizer(client, entry.webhook.settings, profile=self._profile, metrics=self.metrics)

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        return await self._union.authorize(attributes)

    async def decide(self, attributes: Attributes) -> Verdict:
        return await self._union.decide(attributes)

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        return self._rules(user, namespace)

    async def reload(self) -> bool:
        """Read the configuration file again if its bytes changed; True when a new chain took over."""
        if not self._options.config_file or self._metrics is None:
            return False
        data = await read_if_changed(
            self._options.config_file, self._file_bytes, self._metrics, "authorization config file"
        )
        if data is None:
            return False
        self._file_bytes = data
        try:
            entries = parse_authorization_config(yaml.safe_load(data), self._profile)
            old_webhooks = self.webhooks
            self._union, self._rules = self._build(entries)
        except (ValueError, yaml.YAMLError) as error:
            log.error("error reloading authorization config, keeping the previous configuration: %s", error)
            self._metrics.record("failure")
            return False
        for webhook in old_webhooks:
            await webhook.close()
        log.info("reloaded authorization config")
        self._metrics.record("success")
        return True

    async def run_reloads(self) -> None:
        if not self._options.config_file:
            return
        while True:
            await asyncio.sleep(self.reload_interval)
            await self.reload()

    async def close(self) -> None:
        for webhook in self.webhooks:
            with contextlib.suppress(Exception):
                await webhook.close()
