"""Errors the user can act on: shown as one clear message, never as a traceback."""


class UserError(Exception):
    """Bad input or an environment problem the user can fix; str() is the message."""


def explain(e: BaseException) -> str:
    return str(e) or type(e).__name__
