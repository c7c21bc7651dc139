"""docker-compose.yml, the Dockerfiles and docker/seed, checked without a Docker engine.

There is none on the build machine, so these tests read the files: the compose file must
parse, seed the graph once before the API starts, share the guide directory between the seed
and the neo4j services, enable the Browser settings scripts/neo4j/start enables, and nothing a
Dockerfile copies may be excluded by .dockerignore.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _setting_of_env(name: str) -> str:
    """The neo4j image's mapping NEO4J_a_b__c -> a.b_c."""
    return name.removeprefix("NEO4J_").replace("__", "\\0").replace("_", ".").replace("\\0", "_")


def test_seed_runs_once_between_neo4j_and_the_api() -> None:
    services = _compose()["services"]
    seed, api = services["seed"], services["api"]
    assert seed["command"] == ["seed"]
    assert seed["restart"] == "no"
    assert seed["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert api["depends_on"]["seed"]["condition"] == "service_completed_successfully"
    # seed and api are the same image: one build, kg and the examples inside
    assert seed["image"] == api["image"] and seed["build"] == api["build"]
    for service in (seed, api):
        env = service["environment"]
        assert env["KG_BACKEND"] == "neo4j" and env["KG_NEO4J_URI"] == "bolt://neo4j:7687"


def test_guide_directory_is_shared_by_seed_and_neo4j() -> None:
    services = _compose()["services"]
    mounts = {}
    for name in ("seed", "neo4j"):
        env_dir = services[name]["environment"]["PAPERKG_BROWSER_DIR"]
        (mount,) = [v for v in services[name]["volumes"] if v.startswith("browser-guide:")]
        assert mount == f"browser-guide:{env_dir}"
        mounts[name] = env_dir
    assert "browser-guide" in _compose()["volumes"]
    dockerfile = (ROOT / "docker" / "neo4j.Dockerfile").read_text(encoding="utf-8")
    assert f"ENV PAPERKG_BROWSER_DIR={mounts['neo4j']}" in dockerfile
    assert "/plugins/paperkg-browser.jar" in dockerfile


def _start_script_settings() -> dict[str, str]:
    text = (ROOT / "scripts" / "neo4j" / "start").read_text(encoding="utf-8")
    keys = (
        "server.unmanaged_extension_classes",
        "dbms.security.http_auth_allowlist",
        "browser.remote_content_hostname_whitelist",
        "browser.post_connect_cmd",
    )
    found = dict(re.findall(r"^([a-z_.]+)=(.*)$", text, flags=re.M))
    return {k: found[k] for k in keys}


def test_compose_enables_the_browser_settings_of_the_start_script() -> None:
    env = _compose()["services"]["neo4j"]["environment"]
    compose_settings = {_setting_of_env(k): str(v) for k, v in env.items() if k.startswith("NEO4J_")}
    for key, value in _start_script_settings().items():
        assert key in compose_settings, key
        if key == "browser.post_connect_cmd":
            # same commands; the host is the one the user's browser reaches
            local = value.replace("$HOST:$HTTP_PORT", "localhost:${KG_NEO4J_HTTP_PORT:-7474}")
            assert compose_settings[key] == local
        elif key == "browser.remote_content_hostname_whitelist":
            assert set(compose_settings[key].split(",")) == set(value.split(","))
        else:
            assert compose_settings[key] == value
    published = _compose()["services"]["neo4j"]["ports"][0]
    assert published == "${KG_BIND_ADDRESS:-127.0.0.1}:${KG_NEO4J_HTTP_PORT:-7474}:7474"


def _copies(dockerfile: Path) -> list[str]:
    sources: list[str] = []
    for line in dockerfile.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if parts[:1] == ["COPY"] and not any(p.startswith("--from=") for p in parts):
            sources += [p.rstrip("/") for p in parts[1:-1] if not p.startswith("--")]
    return sources


def _ignored(path: str, patterns: list[str]) -> bool:
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(
        fnmatch.fnmatch(p, pat.removeprefix("**/")) or fnmatch.fnmatch(p, pat)
        for p in prefixes
        for pat in patterns
    )


def test_dockerignore_keeps_local_state_out_and_the_copied_files_in() -> None:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    for required in (".venv", ".neo4j", ".kg", ".git", ".ci/out", "**/node_modules", "**/__pycache__"):
        assert required in patterns, required
    for dockerfile in (ROOT / "Dockerfile", ROOT / "docker" / "neo4j.Dockerfile"):
        for source in _copies(dockerfile):
            assert (ROOT / source).exists(), f"{dockerfile.name}: COPY {source} does not exist"
            assert not _ignored(source, patterns), f"{dockerfile.name}: COPY {source} is in .dockerignore"
    assert "examples" in _copies(ROOT / "Dockerfile")


def test_seed_script_uses_files_the_image_has() -> None:
    script = (ROOT / "docker" / "seed").read_text(encoding="utf-8")
    copied = _copies(ROOT / "Dockerfile")
    for path in re.findall(r"/app/([\w./-]+)", script):
        assert (ROOT / path).exists(), path
        assert any(path == c or path.startswith(c + "/") for c in copied), f"/app/{path} is not copied"
    assert "docker/seed" in copied


def test_seed_script_is_valid_bash() -> None:
    result = subprocess.run(["bash", "-n", str(ROOT / "docker" / "seed")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# -- safe deployment defaults (issue 27) --------------------------------------------------------


def test_no_password_ships_and_a_missing_one_stops_compose() -> None:
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert "paperkg-dev-password" not in text
    uses = re.findall(r"\$\{KG_NEO4J_PASSWORD([^}]*)\}", text)
    assert uses, "the compose file takes the password from KG_NEO4J_PASSWORD"
    # ${VAR:?message}: compose refuses to start when the variable is unset or empty
    assert all(u.startswith(":?") and ".env" in u for u in uses), uses
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert re.search(r"^KG_NEO4J_PASSWORD=$", example, flags=re.M), "the example holds no password"
    assert ".env" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".env" in (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for name in ("seed", "api"):
        assert _compose()["services"][name]["environment"]["KG_ENV"] == "production"


def test_every_port_is_published_on_localhost_by_default() -> None:
    for name, service in _compose()["services"].items():
        for port in service.get("ports", []):
            assert port.startswith("${KG_BIND_ADDRESS:-127.0.0.1}:"), (name, port)


def _apoc_calls() -> set[str]:
    """Every APOC function or procedure the repository calls (Cypher files and Python)."""
    names: set[str] = set()
    for pattern in ("**/*.cypher", "**/*.py"):
        for path in ROOT.glob(pattern):
            if (
                any(part in (".venv", "node_modules", ".neo4j") for part in path.parts)
                or path.name == Path(__file__).name
            ):
                continue
            names |= set(re.findall(r"\b(apoc(?:\.\w+)+)\s*\(", path.read_text(encoding="utf-8")))
    return names


def test_apoc_is_restricted_to_what_the_project_calls() -> None:
    env = _compose()["services"]["neo4j"]["environment"]
    assert not any("unrestricted" in key for key in env), "no APOC procedure needs unrestricted access"
    allowed = env["NEO4J_dbms_security_procedures_allowlist"].split(",")
    calls = _apoc_calls()
    assert calls, "the Browser queries call APOC"
    for call in calls:
        assert any(fnmatch.fnmatchcase(call, entry) for entry in allowed), f"{call} is not allowed"
    for entry in allowed:
        assert any(fnmatch.fnmatchcase(call, entry) for call in calls), f"{entry} allows what nothing calls"


def test_readme_says_how_to_deploy_safely() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = " ".join(readme[readme.index("### Docker") : readme.index("### Exports")].split())
    for needed in (
        ".env.example",
        "KG_NEO4J_PASSWORD",
        "127.0.0.1",
        "KG_BIND_ADDRESS",
        "reverse proxy",
        "APOC",
    ):
        assert needed in section, needed
