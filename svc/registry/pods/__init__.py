"""Pod actions the API server performs itself: binding to a node, and eviction."""
