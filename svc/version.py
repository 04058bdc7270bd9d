"""The release this distribution reports: kept apart from the server's options so the client and the
controller daemon read it without importing the API server."""

from svc import __version__

UPSTREAM_VERSION = "v1.36.0"
"""The upstream release whose API this one serves."""
GIT_VERSION = f"{UPSTREAM_VERSION}+svc.{__version__}"
"""What `/version` and `--version` report as `gitVersion`."""
