"""Controllers upstream lists but does not start in this setting, and why.

Upstream's start functions return "not started" for these: the cloud controllers without a cloud
provider (there is none here: in-tree providers are gone, and `--cloud-provider` takes only `external`,
whose cloud loops a separate cloud controller manager runs), and the storage-version garbage
collector, which upstream runs only with its feature gates on (`StorageVersionAPI` is alpha) and
which is not built here even then. Naming them in `--controllers` is accepted, and the daemon logs
that they are skipped, as upstream does.
"""

from __future__ import annotations

from typing import Any

CLOUD = ("cloud-node-lifecycle-controller", "node-route-controller", "service-lb-controller")
STORAGE_VERSION_GC = "storageversion-garbage-collector-controller"
STORAGE_VERSION_GC_GATES = ("APIServerIdentity", "StorageVersionAPI")

REASONS = {
    **dict.fromkeys(CLOUD, "no cloud provider"),
    STORAGE_VERSION_GC: "the storage version garbage collector is not built here",
}


def not_started(_context: Any, _options: Any) -> None:
    """A constructor for the catalog: nothing is started."""
    return None
