"""The one error the fixtures raise when they cannot set up: its message names what is wrong."""


class PaysheetSetupError(RuntimeError):
    """A fixture could not set up (no binary, a port in use, a server that did not start, no browser)."""
