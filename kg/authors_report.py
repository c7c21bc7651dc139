"""Author names that ids keep apart, found while reading, for the ingest report.

Ids decide identity (:func:`kg.ids.author_node_id`), so nothing is merged by name across ids.
What the user should still hear about: a name printed on papers *without* an id that several
id-keyed Authors also carry. Those papers' Author (keyed by the name) could be any of them, so
it is kept apart and reported, never silently merged into one of them.

:class:`AuthorIdentityStats` also counts what ids changed against name-only keys: ``merged``
(name keys that ids joined into one Author: one person under several spellings) and
``split`` (name keys that ids divided into several Authors: namesakes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg.ids import author_id, author_node_id
from kg.models import RawPaper

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
        """Author nodes with ids vs name-only keys (see the module docstring)."""
        id_nodes = len(self.names_by_id)
        name_only = len(set(self.idless_by_name) - set(self.ids_by_name))
        return {
            "authors": id_nodes + len(self.idless_by_name),
            "id_keyed": id_nodes,
            "name_keyed": len(self.idless_by_name),
            "name_keys_with_ids": len(self.ids_by_name),
            "merged": sum(1 for names in self.names_by_id.values() if len(names) > 1),
            "split": sum(1 for ids in self.ids_by_name.values() if len(ids) > 1),
            "names_only_without_ids": name_only,
            "idless_names_also_with_ids": len(set(self.idless_by_name) & set(self.ids_by_name)),
            "ambiguous_idless_names": len(self.ambiguous()),
        }

    def lines(self) -> list[str]:
        """Report lines: one per ambiguous name (capped), then a count of the rest."""
        amb = self.ambiguous()
        out = [
            f"  note: author {name!r} on {n} paper(s) without an id matches {len(ids)} authors with "
            f"ids ({', '.join(ids[:4])}{', ...' if len(ids) > 4 else ''}); kept apart as {author_id(name)}"
            for name, n, ids in amb[:MAX_AMBIGUOUS_LINES]
        ]
        if len(amb) > MAX_AMBIGUOUS_LINES:
            out.append(f"  note: ... and {len(amb) - MAX_AMBIGUOUS_LINES:,} more such author names")
        return out
