"""Encryption at rest as a server concern: the flags, the configured transformers, reloads, health."""
