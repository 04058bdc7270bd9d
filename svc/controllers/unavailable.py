"""Controllers upstream lists but does not start in this setting, and why.

Upstream's start functions return "not started" for these: the cloud controllers without a cloud
provider (there is none here: in-tree providers are gone, and `--cloud-provider` takes only `external`,
whose cloud loops a separate cloud controller manager runs), and
the storage-version garbage collector while its alpha feature gates (`APIServerIdentity` with
`StorageVersionAPI`) are off, which they are by default. Naming them in `--controllers` is accepted,
and the daemon logs that they are disabled, as upstream does.
"""

from __future__ import annotations

from typing import Any

REASONS = {
    "cloud-node-lifecycle-controller": "no cloud provider",
    "node-route-controller": "no cloud provider",
    "service-lb-controller": "no cloud provider",
    "storageversion-garbage-collector-controller": "the StorageVersionAPI feature gate is off",
}


def not_started(_context: Any, _options: Any) -> None:
    """A constructor for the catalog: nothing is started."""
    return None
