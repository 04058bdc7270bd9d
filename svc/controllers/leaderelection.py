"""Leader election on a coordination Lease, with upstream's timing (`client-go/tools/leaderelection`).

A candidate acquires the Lease when nobody holds it or when the holder's record has not changed for
`lease_duration` as measured on the candidate's own clock since it last saw the record change (never
by comparing the holder's timestamps with local time, so clock skew between machines does not
matter). The leader renews every `retry_period`; if no renewal succeeds for `renew_deadline` it
stops leading, and the daemon then exits, as kube-controller-manager does, so that controllers never
run in two places for longer than the lease allows. Writes are compare-and-swap on the Lease's
resourceVersion: of two candidates racing for an expired Lease, one gets a 409 and keeps waiting.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.clock import Clock, RealClock
from svc.client.metrics import installed

log = logging.getLogger(__name__)
JITTER = 1.2


@dataclass(frozen=True)
class LeaderElectionConfig:
    namespace: str
    name: str
    identity: str
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    coordination_group: str = "coordination.k8s.io"


def validate(config: LeaderElectionConfig) -> list[str]:
    """Upstream's checks of the three durations (`NewLeaderElector`)."""
    problems = []
    if config.lease_duration <= config.renew_deadline:
        problems.append("leaseDuration must be greater than renewDeadline")
    if config.renew_deadline <= JITTER * config.retry_period:
        problems.append("renewDeadline must be greater than retryPeriod*JitterFactor")
    if config.retry_period < 0.001:
        problems.append("retryPeriod must be greater than zero")
    return problems


class LeaderElector:
    def __init__(self, client: AsyncRestClient, config: LeaderElectionConfig, *, clock: Clock | None = None) -> None:
        self.client = client
        self.config = config
        self.clock = clock or RealClock()
        self._observed_spec: dict[str, Any] | None = None
        self._observed_time = 0.0
        self.leading = False
        self._seconds = max(1, round(config.lease_duration))
        self._path = resource_path(config.coordination_group, "v1", "leases", namespace=config.namespace)
        self._metrics = installed()

    def _set_leading(self, leading: bool) -> None:
        """Whether this candidate leads, reported as `leader_election_master_status` (client-go's)."""
        self.leading = leading
        if self._metrics is not None:
            self._metrics.leader.labels(self.config.name).set(1 if leading else 0)

    async def check(self) -> None:
        """The `leaderElection` health check: fails when this leader's renewals are overdue by more
        than the lease duration plus a 20 s tolerance (upstream's `HealthzAdaptor`)."""
        if self.leading and self.clock.now() > self._observed_time + self.config.lease_duration + 20.0:
            raise RuntimeError("failed election to renew leadership on lease")

    async def acquire(self) -> None:
        """Return once this candidate holds the Lease."""
        log.info("attempting to acquire leader lease %s/%s...", self.config.namespace, self.config.name)
        while not await self._try_acquire_or_renew():
            await self.clock.sleep(self.config.retry_period * (1 + random.random() * (JITTER - 1)))
        self._set_leading(True)
        log.info("successfully acquired lease %s/%s", self.config.namespace, self.config.name)

    async def keep_renewing(self) -> None:
        """Renew until a renewal deadline passes without success; then return (leadership is lost)."""
        while True:
            deadline = self.clock.now() + self.config.renew_deadline
            while not await self._try_acquire_or_renew():
                if self.clock.now() >= deadline:
                    self._set_leading(False)
                    log.error("failed to renew lease %s/%s: timed out", self.config.namespace, self.config.name)
                    return
                await self.clock.sleep(self.config.retry_period)
            await self.clock.sleep(self.config.retry_period)

    async def _try_acquire_or_renew(self) -> bool:
        now = datetime.fromtimestamp(self.clock.wall(), UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        me = self.config.identity
        try:
            lease = await self.client.get(f"{self._path}/{self.config.name}")
        except ApiError as error:
            if error.code != 404:
                log.warning("error retrieving lease: %s", error)
                return False
            return await self._create(now)
        except (TimeoutError, OSError) as error:
            log.warning("error retrieving lease: %s", error)
            return False
        spec = lease.get("spec") or {}
        if spec != self._observed_spec:
            self._observed_spec = spec
            self._observed_time = self.clock.now()
        holder = spec.get("holderIdentity") or ""
        duration = float(spec.get("leaseDurationSeconds") or self.config.lease_duration)
        if holder and holder != me and self._observed_time + duration > self.clock.now():
            return False
        renewed = dict(
            spec, holderIdentity=me, leaseDurationSeconds=max(1, round(self.config.lease_duration)), renewTime=now
        )
        if holder != me:
            renewed["acquireTime"] = now
            renewed["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (1 if holder else 0)
        try:
            updated = await self.client.update(f"{self._path}/{self.config.name}", dict(lease, spec=renewed))
        except (TimeoutError, ApiError, OSError) as error:
            log.warning("failed to update lease: %s", error)
            return False
        self._observe(updated)
        return True

    async def _create(self, now: str) -> bool:
        body = {
            "apiVersion": f"{self.config.coordination_group}/v1",
            "kind": "Lease",
            "metadata": {"name": self.config.name, "namespace": self.config.namespace},
            "spec": {
                "holderIdentity": self.config.identity,
                "leaseDurationSeconds": self._seconds,
                "acquireTime": now,
                "renewTime": now,
                "leaseTransitions": 0,
            },
        }
        try:
            created = await self.client.create(self._path, body)
        except (TimeoutError, ApiError, OSError) as error:
            log.warning("error initially creating lease lock: %s", error)
            return False
        self._observe(created)
        return True

    def _observe(self, lease: dict[str, Any]) -> None:
        self._observed_spec = lease.get("spec") or {}
        self._observed_time = self.clock.now()
