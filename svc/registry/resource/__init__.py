"""Write hooks of the resource.k8s.io (DRA) kinds."""
