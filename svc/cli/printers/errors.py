"""The one error type of the output printers (Go templates, JSONPath, KYAML), with kubectl's texts."""

from __future__ import annotations


class TemplateError(ValueError):
    """A template failed to parse or execute, or data could not be printed.

    `output` is what kubectl writes to standard output before it fails: for Go templates, the text
    rendered up to the failure followed by its "Printing more information for debugging" block;
    empty for JSONPath, which prints nothing when it fails.
    """

    def __init__(self, message: str, *, output: str = "") -> None:
        super().__init__(message)
        self.output = output
