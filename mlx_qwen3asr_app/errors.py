"""The app's one error type: a problem the user can fix, whose message says how."""


class AppError(Exception):
    """Printed as `error: <message>` and the app exits with status 1."""
