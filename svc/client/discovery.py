"""What the server serves, from aggregated discovery (`/api` and `/apis` in two requests).

Controllers that act on every kind (namespace content removal, garbage collection) ask which
resources exist and which verbs they support instead of hard-coding a list, so custom resources
are covered as soon as they are served. Each group lists its versions most preferred first.
"""

from __future__ import annotations

from dataclasses import dataclass

from svc.client.aio import AsyncRestClient


@dataclass(frozen=True)
class ApiResource:
    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    verbs: frozenset[str]
    preferred: bool
    subresources: frozenset[str] = frozenset()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """`pods`, `deployments.apps`: how upstream's messages name a resource."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def supports(self, *verbs: str) -> bool:
        return all(verb in self.verbs for verb in verbs)


async def server_resources(client: AsyncRestClient, discovery_group: str) -> list[ApiResource]:
    """Every top-level resource of every served group version, with the names of its subresources."""
    accept = f"application/json;g={discovery_group};v=v2;as=APIGroupDiscoveryList"
    found: list[ApiResource] = []
    for path in ("/api", "/apis"):
        listed = await client.request("GET", path, headers={"Accept": accept})
        for group in listed.get("items") or []:
            name = (group.get("metadata") or {}).get("name") or ""
            for index, version in enumerate(group.get("versions") or []):
                for resource in version.get("resources") or []:
                    found.append(
                        ApiResource(
                            group=name,
                            version=version.get("version", ""),
                            resource=resource.get("resource", ""),
                            kind=(resource.get("responseKind") or {}).get("kind", ""),
                            namespaced=resource.get("scope") == "Namespaced",
                            verbs=frozenset(resource.get("verbs") or ()),
                            preferred=index == 0,
                            subresources=frozenset(
                                sub.get("subresource", "") for sub in resource.get("subresources") or []
                            ),
                        )
                    )
    return found
