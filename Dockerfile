# The paperkg GraphQL API (`kg serve`). Used by docker-compose.yml (service "api").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Only what the package build needs (keeps .venv/, .neo4j/ and other local state out of the image).
COPY pyproject.toml README.md ./
COPY kg ./kg
COPY extractors ./extractors
COPY api ./api

RUN pip install . \
    && useradd --create-home --uid 10001 paperkg

# For the compose "seed" service: the example listings, the documented Browser queries and
# style it builds the guide from, and the seed script itself (docker/seed).
COPY examples ./examples
COPY neo4j-browser/paperkg.grass neo4j-browser/browser-queries.cypher ./neo4j-browser/
COPY docker/seed /usr/local/bin/seed

USER paperkg
EXPOSE 8000

CMD ["kg", "serve", "--host", "0.0.0.0", "--port", "8000"]
