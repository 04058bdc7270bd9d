"""`python -m svc.nodes`."""

from svc.nodes.main import main

main()
