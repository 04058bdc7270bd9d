"""The Pod Security Standards (baseline, restricted) as upstream's pod-security-admission checks them."""
