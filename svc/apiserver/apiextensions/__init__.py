"""The apiextensions part of the API server: CRD status, the dynamic resource set, and custom
resources served through the generic store with a schema-driven strategy."""
