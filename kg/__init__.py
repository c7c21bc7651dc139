"""paperkg core: models, readers, pipeline, stores, analytics and the ``kg`` CLI."""

__version__ = "0.1.0"
