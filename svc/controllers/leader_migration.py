"""Controller leader migration (`--enable-leader-migration`, `--leader-migration-config`), as upstream's
controller managers do it while controllers move to another controller manager (a cloud controller
manager) without two copies running: the controllers a LeaderMigrationConfiguration lists run under a
second Lease (its `leaderName`) once the main lease is held, and only when their `component` is this
daemon or `*`; those listed for another component are not started here; every other controller runs
under the main lease as usual. Without a file upstream's default configuration is used (the cloud
controllers, for any component). Migration needs `--leader-elect`: without it the flag changes nothing,
as upstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from svc.controllers import catalog

KIND = "LeaderMigrationConfiguration"
GROUP = "controllermanager.config.k8s.io"
VERSIONS = ("v1alpha1", "v1beta1", "v1")
LOCKS = ("leases", "endpoints")
ANY_COMPONENT = "*"


@dataclass(frozen=True)
class ControllerLeader:
    name: str
    component: str


@dataclass(frozen=True)
class LeaderMigrationConfig:
    leader_name: str
    resource_lock: str = "leases"
    controller_leaders: tuple[ControllerLeader, ...] = field(default_factory=tuple)


DEFAULT = LeaderMigrationConfig(
    "cloud-provider-extraction-migration",
    "leases",
    tuple(
        ControllerLeader(name, ANY_COMPONENT)
        for name in ("route-controller", "service-controller", "cloud-node-lifecycle-controller")
    ),
)


def load(path: str, group: str = GROUP) -> LeaderMigrationConfig:
    """The file's configuration (`group` is the brand's spelling of upstream's); ValueError with
    upstream's texts when it cannot be read, is not of the kind, or is invalid."""
    if not path:
        return DEFAULT
    try:
        document = yaml.safe_load(Path(path).read_text())
    except OSError as error:
        raise ValueError(
            f'unable to read leader migration configuration from "{path}": open {path}: {error.strerror.lower()}'
        ) from None
    except yaml.YAMLError as error:
        raise ValueError(f"error converting YAML to JSON: {error}") from None
    if not isinstance(document, dict):
        raise ValueError("Object 'Kind' is missing in leader migration configuration")
    api_version, kind = str(document.get("apiVersion") or ""), str(document.get("kind") or "")
    if not kind:
        raise ValueError("Object 'Kind' is missing in leader migration configuration")
    known = {f"{spelling}/{version}" for spelling in {group, GROUP} for version in VERSIONS}
    if kind != KIND or api_version not in known:
        raise ValueError(f'no kind "{kind}" is registered for version "{api_version}"')
    # v1 has no resourceLock field: its lock is always a Lease
    lock = "leases" if api_version.endswith("/v1") else str(document.get("resourceLock") or "")
    leaders = tuple(
        ControllerLeader(str(item.get("name") or ""), str(item.get("component") or ""))
        for item in document.get("controllerLeaders") or ()
        if isinstance(item, dict)
    )
    config = LeaderMigrationConfig(str(document.get("leaderName") or ""), lock, leaders)
    if errors := validate(config):
        raise ValueError(f"failed to parse leader migration configuration: [{' '.join(errors)}]")
    if config.resource_lock != "leases":
        # valid in the file, but client-go no longer builds an Endpoints lock
        raise ValueError("error creating lock: endpoints lock is removed, migrate to endpointsleases")
    return config


def validate(config: LeaderMigrationConfig) -> list[str]:
    """Upstream's checks, as field errors."""
    errors = []
    if not config.leader_name:
        errors.append("leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration")
    if config.resource_lock not in LOCKS:
        errors.append(
            f'resourceLock: Invalid value: "{config.resource_lock}": '
            "resource Lock must be one of 'leases' or 'endpoints'"
        )
    for index, leader in enumerate(config.controller_leaders):
        if not leader.component:
            errors.append(f"controllerLeaders[{index}].component: Required value: component must be set")
        if not leader.name:
            errors.append(f"controllerLeaders[{index}].name: Required value: name must be set")
    return errors


def _listed(entry: str, controller: str) -> bool:
    """An entry names a controller by its name or an upstream short name (`route-controller` is the
    route controller's old name)."""
    aliases = catalog.ALIASES
    return controller in (entry, aliases.get(entry), aliases.get(entry.removesuffix("-controller")))


def split(config: LeaderMigrationConfig, controllers: list[str], component: str) -> tuple[list[str], list[str]]:
    """(`controllers` under the main lease, those under the migration lease); controllers the
    configuration gives to another component are in neither."""
    main: list[str] = []
    migrated: list[str] = []
    for controller in controllers:
        leader = next((item for item in config.controller_leaders if _listed(item.name, controller)), None)
        if leader is None:
            main.append(controller)
        elif leader.component in (component, ANY_COMPONENT):
            migrated.append(controller)
    return main, migrated
