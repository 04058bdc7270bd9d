"""Which fields a write may record and own: upstream's reset-field filters (`fieldpath.Filter`).

A strategy either resets some paths (a write changes nothing at or under them: upstream's exclude
filter) or lets a subresource change only some fields (a write changes nothing outside them: upstream's
include filter of prefix matchers, `NewIncludeMatcherFilter`). The field manager passes the writer's
field set and every comparison through the filter, so a writer never owns, and never conflicts over,
what its strategy would not let it change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from svc.machinery.apply.fieldpath import FieldSet, Path, PathElement

Pattern = tuple[PathElement | None, ...]
"""A prefix matcher: each step an element, or None for any one element (`MatchAnyPathElement`)."""


def _matches(path: Path, pattern: Pattern) -> bool:
    """Upstream's include matching: the path agrees with the pattern as far as both go, so a path above
    the pattern's end (`.spec` for `.spec.ephemeralContainers`) and every path below it are kept."""
    return all(step is None or step == element for step, element in zip(pattern, path, strict=False))


@dataclass(frozen=True)
class FieldFilter:
    """`reset` paths are left out with everything below them; with `keep_only`, so is every path no
    pattern matches."""

    reset: FieldSet
    keep_only: tuple[Pattern, ...] | None = None

    def owned(self, fields: FieldSet) -> FieldSet:
        """The part of `fields` a write through this strategy records."""
        if self.keep_only is not None:
            keep_only = self.keep_only
            fields = FieldSet(path for path in fields if any(_matches(path, pattern) for pattern in keep_only))
        return fields.recursive_difference(self.reset)


NO_FILTER = FieldFilter(FieldSet())


def pattern(steps: Sequence[str | PathElement | None]) -> Pattern:
    """A pattern from field names (and elements); `*` or None matches any one element."""
    return tuple(
        None if step is None or step == "*" else step if isinstance(step, PathElement) else PathElement.field(step)
        for step in steps
    )
