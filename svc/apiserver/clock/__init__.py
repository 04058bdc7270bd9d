"""The server's clock (`--clock`): real, or fake and moved by `/testing/v1/clock` for tests."""
