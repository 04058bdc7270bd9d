"""What API servers sharing one store do about each other: identity Leases and the endpoints of the
cluster's own Service."""
