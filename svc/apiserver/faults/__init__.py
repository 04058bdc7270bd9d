"""Fault injection for tests: rules that answer matching requests with an error, add latency, or end
a watch early (`--fault-config`, and `/testing/v1/faults` at run time)."""
