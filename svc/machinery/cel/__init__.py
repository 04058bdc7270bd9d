"""CEL for every feature that evaluates rules: one environment, compiled programs, upstream's texts."""

from svc.machinery.cel.cost import COST_EXCEEDED, CostExceeded
from svc.machinery.cel.environment import Environment, Program, environment
from svc.machinery.cel.values import CelError, CompileError

__all__ = ["COST_EXCEEDED", "CelError", "CompileError", "CostExceeded", "Environment", "Program", "environment"]
