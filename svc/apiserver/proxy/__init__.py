"""The `pods/proxy`, `services/proxy` and `nodes/proxy` subresources: HTTP relayed into the cluster."""
