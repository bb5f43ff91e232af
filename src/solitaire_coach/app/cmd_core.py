"""Core subcommands (filled in by the core issue)."""


def register(sub) -> None:
    pass
