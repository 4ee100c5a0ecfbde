"""Errors a user can fix: the CLI prints them as one line and exits non-zero, without a traceback."""


class UserError(Exception):
    """Bad input from the user (missing module, bad driver, unreadable file...): shown as one line."""


class TargetImportError(UserError):
    """The target or driver module could not be imported (missing, syntax error, raised on import)."""
