"""Custom resources' schemas: the structural tree of a CRD version's openAPIV3Schema and what the
custom resource strategy does with it (pruning, defaulting, value and CEL validation, ratcheting).
Pure data, no I/O: `schema.CustomResourceSchema` is the one entry point.
"""
