"""Write the GraphQL schema (SDL) to ``schema.graphql`` at the repository root, or check it.

Usage::

    python scripts/export_schema.py           # rewrite schema.graphql
    python scripts/export_schema.py --check   # exit 1 when schema.graphql is stale (CI)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from api.schema import print_sdl

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "schema.graphql"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--check", action="store_true", help="fail instead of writing when it differs")
    args = parser.parse_args()
    sdl = print_sdl()
    current = args.path.read_text(encoding="utf-8") if args.path.exists() else None
    if args.check:
        if current != sdl:
            print(f"{args.path} is stale: run python scripts/export_schema.py", file=sys.stderr)
            return 1
        return 0
    if current != sdl:
        args.path.write_text(sdl, encoding="utf-8")
        print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
