"""The svc control plane: API server, controller daemon and client in one distribution."""

__version__ = "0.1.0"
