"""One exception root for paperkg; errors are translated to messages only at the edges."""

from __future__ import annotations


class KGError(Exception):
    """Base class of every error paperkg raises on purpose."""


class InputError(KGError):
    """A listing file or record could not be read; carries where it happened."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = message
        where = file if file is not None else "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class ExtractionError(KGError):
    """An extractor failed on one paper."""


class GraphStoreError(KGError):
    """The graph store failed (unreachable server, bad credentials, corrupt file, failed write)."""


class StoreUnavailable(GraphStoreError):
    """The store cannot be reached at all (server down, wrong credentials)."""


class NodeNotFound(GraphStoreError):
    """A node looked up by id does not exist."""


class ConfigError(KGError):
    """Settings are missing or inconsistent."""
