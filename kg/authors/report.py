"""Author names that ids keep apart, found while reading, for the ingest report.

Ids decide identity (:func:`kg.core.ids.author_node_id`), so nothing is merged by name across ids.
What the user should still hear about: a name printed on papers *without* an id that several
id-keyed Authors also carry. Those papers' Author (keyed by the name) could be any of them, so
it is kept apart and reported, never silently merged into one of them.

:class:`AuthorIdentityStats` also counts what ids changed against name-only keys: ``merged``
(name keys that ids joined into one Author: one person under several spellings) and
``split`` (name keys that ids divided into several Authors: namesakes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from kg.core.ids import author_id, author_node_id
from kg.core.models import RawPaper

MAX_AMBIGUOUS_LINES = 20


@dataclass
class AuthorIdentityStats:
    """Author keys seen in an ingest, by name key and by node id."""

    ids_by_name: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    names_by_id: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    idless_by_name: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    spelling: dict[str, str] = field(default_factory=dict)

    def add(self, papers: Iterable[RawPaper]) -> None:
        for p in papers:
            for i, name in enumerate(p.authors):
                keys = p.author_keys[i] if i < len(p.author_keys) else ()
                name_key = author_id(name)
                self.spelling.setdefault(name_key, name)
                if keys:
                    node = author_node_id(name, keys)
                    self.ids_by_name[name_key].add(node)
                    self.names_by_id[node].add(name_key)
                else:
                    self.idless_by_name[name_key] += 1

    def ambiguous(self) -> list[tuple[str, int, list[str]]]:
        """``(name, papers without an id, [author ids])`` for id-less names that ≥ 2 ids carry."""
        out = []
        for name_key, count in self.idless_by_name.items():
            ids = self.ids_by_name.get(name_key, set())
            if len(ids) >= 2:
                out.append((self.spelling[name_key], count, sorted(ids)))
        return sorted(out, key=lambda t: (-len(t[2]), t[0]))

    def summary(self) -> dict[str, int]:
        """Author nodes with id keys against name-only keys (see the module docstring).

        ``name_only_nodes``: Authors if every slot were keyed by its name (the old rule);
        ``nodes``: Authors with the id rule (id-keyed + id-less name keys). ``split_*``: name
        keys that ids divide, between ids of one system (namesakes, e.g. ``~Jian_Zhang1`` and
        ``~Jian_Zhang3``) or of several (``acl:`` and ``openreview:`` may be one person).
        """
        all_names = set(self.idless_by_name) | set(self.ids_by_name)
        kinds = {name: {i.split(":")[1] for i in ids} for name, ids in self.ids_by_name.items()}
        split = [name for name, ids in self.ids_by_name.items() if len(ids) > 1]
        return {
            "name_only_nodes": len(all_names),
            "nodes": len(self.names_by_id) + len(self.idless_by_name),
            "id_keyed": len(self.names_by_id),
            "name_keyed": len(self.idless_by_name),
            "merged": sum(1 for names in self.names_by_id.values() if len(names) > 1),
            "split": len(split),
            "split_within_one_id_system": sum(1 for n in split if len(kinds[n]) == 1),
            "split_across_id_systems": sum(1 for n in split if len(kinds[n]) > 1),
            "idless_names_also_with_ids": len(set(self.idless_by_name) & set(self.ids_by_name)),
            "ambiguous_idless_names": len(self.ambiguous()),
        }

    def lines(self, people: Collection[str] | None = None) -> list[str]:
        """Report lines: one per ambiguous name (capped), then a count of the rest.

        ``people``: the resolved Author ids (:mod:`kg.authors.resolution`), when resolution ran; a
        name whose id-less papers all joined people is then not ambiguous any more.
        """
        amb = [a for a in self.ambiguous() if people is None or author_id(a[0]) in people]
        out = [
            f"  note: author {name!r} on {n} paper(s) without an id matches {len(ids)} authors with "
            f"ids ({', '.join(ids[:4])}{', ...' if len(ids) > 4 else ''}); kept apart as {author_id(name)}"
            for name, n, ids in amb[:MAX_AMBIGUOUS_LINES]
        ]
        if len(amb) > MAX_AMBIGUOUS_LINES:
            out.append(f"  note: ... and {len(amb) - MAX_AMBIGUOUS_LINES:,} more such author names")
        return out


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.authors.report PATH...``: the counts above for listing files, no store."""
    import json
    import sys
    from pathlib import Path

    from kg.readers import iter_input_files, read_file

    stats = AuthorIdentityStats()
    for path in iter_input_files([Path(a) for a in (sys.argv[1:] if argv is None else argv)]):
        if isinstance(path, Path):
            stats.add(read_file(path).papers)
    sys.stdout.write(json.dumps(stats.summary(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
