"""cel-go's form of a compile-time error: `ERROR: <input>:line:col: message`, then the source line
and a caret under the column. CRD and policy validation quote these texts."""

from __future__ import annotations


def format_issue(text: str, offset: int, message: str) -> str:
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    source = text.splitlines()[line - 1] if text.strip() else ""
    return f"ERROR: <input>:{line}:{column}: {message}\n | {source}\n | {'.' * (column - 1)}^"
