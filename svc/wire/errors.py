"""The one error every decoder raises for a body that is not well-formed in its format."""


class DecodeError(ValueError):
    """The body is not well-formed in its declared format."""
