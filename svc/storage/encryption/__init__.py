"""Encryption at rest: values are transformed between the storage codec and the backend, as
upstream's value transformers sit between its codec and etcd (`--encryption-provider-config`)."""
