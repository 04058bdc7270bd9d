"""Services: the cluster IPs and node ports the API server allocates to them (upstream's service REST
storage and its allocators), kept in storage so they survive a restart and hold across API servers."""
