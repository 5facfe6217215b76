"""Errors the user can act on: shown as one clear message, never as a traceback."""


class UserError(Exception):
    """Bad input or an environment problem the user can fix; str() is the message."""

    session: str | None = None  # the session the command was about, when there was one (--json names it)


def explain(e: BaseException) -> str:
    return str(e) or type(e).__name__


class EnvironmentProblem(UserError):
    """The machine, not the input: a full disk, a read-only or locked database. Exit status 3."""

    exit_code = 3
    session: str | None = None  # the session that was running, when there was one
