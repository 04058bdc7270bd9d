"""The KMS v2 provider: a plugin on a unix socket encrypts a seed, values are sealed locally."""
