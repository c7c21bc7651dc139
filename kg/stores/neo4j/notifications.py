"""Neo4j server notifications are for whoever debugs a query, not for a user's terminal.

The server attaches notifications to results ("property key does not exist" on the first
ingest into an empty database, "cartesian product" hints); the driver logs each on the
``neo4j.notifications`` logger at the notification's own severity, and Python's last-resort
handler prints warnings on stderr: a raw ``GqlStatusObject ... 01N52 ...`` line in the middle
of ``kg ingest``. Two public knobs keep them out: the driver config that asks the server not
to send the "does not exist (yet)" class at all, and a filter on the driver's documented
notification logger that logs every other one at debug level.
"""

from __future__ import annotations

import logging
from typing import Any

import neo4j

NOTIFICATION_LOGGER = "neo4j.notifications"

# Driver config: labels, types and property keys that do not exist yet are the normal state
# of an empty database (and INTRODUCES may never exist).
DRIVER_CONFIG: dict[str, Any] = {
    "notifications_disabled_classifications": [neo4j.NotificationDisabledClassification.UNRECOGNIZED],
}


class _DebugOnly(logging.Filter):
    """Log a notification at debug level whatever its severity; drop it unless debug is on."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def quiet_notifications() -> None:
    """Install the debug-level filter on the driver's notification logger (once)."""
    logger = logging.getLogger(NOTIFICATION_LOGGER)
    if not any(isinstance(f, _DebugOnly) for f in logger.filters):
        logger.addFilter(_DebugOnly())
