"""Role bindings: the API group of the role reference and of user and group subjects.

The group is brand-bearing (`rbac.authorization.k8s.io` upstream, `rbac.authorization.svc` under the
svc brand), so it is spelled as the active profile serves it.
"""

from __future__ import annotations

from svc.api.brand import Profile
from svc.api.defaults.walk import Obj, child, entries, fill

UPSTREAM_GROUP = "rbac.authorization.k8s.io"
_GROUPED_SUBJECTS = frozenset({"User", "Group"})


def binding(obj: Obj, profile: Profile) -> None:
    """RoleBinding and ClusterRoleBinding alike."""
    group = profile.group(UPSTREAM_GROUP)
    role_ref = child(obj, "roleRef")
    if role_ref is not None:
        fill(role_ref, "apiGroup", group)
    for subject in entries(obj, "subjects"):
        if isinstance(subject.get("kind"), str) and subject["kind"] in _GROUPED_SUBJECTS:
            fill(subject, "apiGroup", group)
