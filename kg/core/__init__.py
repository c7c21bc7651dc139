"""The shared vocabulary of paperkg: models, ids, errors, merge rules, derived weights, name
keys and token normal forms, settings.

Why a package of its own: everything else imports it (``extractors`` imports nothing else
from ``kg``), so it imports nothing from ``kg`` outside ``kg.core``, nor ``extractors`` nor ``api``
(tests/unit/test_import_layers.py)."""
