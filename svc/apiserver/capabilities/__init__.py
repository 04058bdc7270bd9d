"""What the cluster lets pods do (upstream's `capabilities` settings): today, privileged containers."""
