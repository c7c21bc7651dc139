"""The GraphQL API (strawberry on FastAPI) over a :class:`kg.store.GraphStore`."""
