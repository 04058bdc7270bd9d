"""Fixtures of the end-to-end tests with real clients."""

from tests.e2e.kopf_runner import kopf_operator

__all__ = ["kopf_operator"]
