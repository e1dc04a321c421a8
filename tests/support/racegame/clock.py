"""A race has no deadlines: enforcing one is refused."""

from service.errors import WrongPhase


def no_deadline() -> WrongPhase:
    return WrongPhase("a race has no deadlines", code="no_deadline")
