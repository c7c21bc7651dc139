"""The GraphQL API (strawberry on FastAPI) over a :class:`kg.stores.protocol.GraphStore`."""
