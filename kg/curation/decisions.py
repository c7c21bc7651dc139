"""Decisions a user records about authors and concepts, kept in a plain file and re-applied by every ingest.

Why a file: the store is rebuilt from the listings (a fresh store, another file order), and a
correction made only in the store would be lost. Each decision is one JSON object per line
(JSON Lines), keyed by stable Author ids (external ids where they exist), in the order made:

    {"verb": "merge-authors", "ids": ["author:openreview:~Ada_Lovelace1", "author:ada-lovelace"]}
    {"verb": "split-author", "id": "author:jian-zhang", "papers": ["paper:0123456789abcdef"]}
    {"verb": "rename-author", "id": "author:openreview:~Ada_Lovelace1", "name": "Augusta Ada King"}
    {"verb": "merge-concepts", "ids": ["concept:gan", "concept:gans"], "name": "GAN", "aliases": ["GANs"]}
    {"verb": "hide-concept", "id": "concept:proposed-method"}
    {"verb": "place-concept", "id": "concept:vae", "parent": "concept:generative-model", "name": "GM"}

A concept decision also records the names the store showed when it was made (the kept
concept's name and the merged ones as aliases; the parent's name), so a record that carries
only the merged concept can still name the kept one (:mod:`kg.curation.concept_rewrite`).

They are applied, in file order, to every resolution (:func:`apply`): after
:func:`kg.authors.resolution.resolve` in each ingest, and at once when ``kg curate`` records one
(the names concerned are re-resolved from the store's slots, :func:`kg.authors.ingest.prepare`).
A decision about an Author the resolution does not hold changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kg.authors.resolution import EVIDENCE, Person, Resolution, Slot, person_properties
from kg.core.errors import KGError
from kg.core.models import Properties
from kg.curation.concept_rewrite import CONCEPT_VERBS, HIDE, MERGE, PLACE

FILE_NAME = "curations.jsonl"
AUTHOR_VERBS = ("merge-authors", "split-author", "rename-author")
VERBS = AUTHOR_VERBS + CONCEPT_VERBS


class CurationError(KGError):
    """A curation file or decision that cannot be used (file, line, what was wrong)."""


@dataclass(frozen=True)
class Curation:
    """One recorded decision."""

    verb: str
    ids: tuple[str, ...] = ()
    papers: tuple[str, ...] = ()
    name: str | None = None
    aliases: tuple[str, ...] = ()

    def to_json(self) -> str:
        data: dict[str, object] = {"verb": self.verb}
        if self.verb in CONCEPT_VERBS:
            data.update(self._concept_json())
            return json.dumps(data, ensure_ascii=False)
        if self.verb == "merge-authors":
            data["ids"] = list(self.ids)
        else:
            data["id"] = self.ids[0]
        if self.verb == "split-author":
            data["papers"] = list(self.papers)
        if self.verb == "rename-author":
            data["name"] = self.name
        return json.dumps(data, ensure_ascii=False)

    def _concept_json(self) -> dict[str, object]:
        if self.verb == MERGE:
            return {"ids": list(self.ids), "name": self.name, "aliases": list(self.aliases)}
        if self.verb == HIDE:
            return {"id": self.ids[0]}
        return {"id": self.ids[0], "parent": self.ids[1], "name": self.name}

    def describe(self) -> str:
        if self.verb == MERGE:
            return f"merge-concepts {' '.join(self.ids)} (as {self.name!r})"
        if self.verb == HIDE:
            return f"hide-concept {self.ids[0]}"
        if self.verb == PLACE:
            return f"place-concept {self.ids[0]} {self.ids[1]}"
        if self.verb == "merge-authors":
            return f"merge-authors {' '.join(self.ids)}"
        if self.verb == "split-author":
            return f"split-author {self.ids[0]} --papers {' '.join(self.papers)}"
        return f"rename-author {self.ids[0]} {self.name!r}"


def parse(data: object, where: str) -> Curation:
    """A decision from its JSON form; :class:`CurationError` naming ``where`` when malformed."""
    if not isinstance(data, dict) or data.get("verb") not in VERBS:
        raise CurationError(f"{where}: not a curation (expected a verb among {', '.join(VERBS)})")
    verb = str(data["verb"])
    if verb in CONCEPT_VERBS:
        return _parse_concept(data, verb, where)

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise CurationError(f"{where}: {verb} needs {key!r}: a list of ids")
        return tuple(value)

    if verb == "merge-authors":
        ids = strings("ids")
        if len(set(ids)) < 2:
            raise CurationError(f"{where}: merge-authors needs two or more different ids")
        return Curation(verb, ids)
    single = data.get("id")
    if not isinstance(single, str) or not single:
        raise CurationError(f"{where}: {verb} needs 'id'")
    if verb == "split-author":
        return Curation(verb, (single,), strings("papers"))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CurationError(f"{where}: rename-author needs a non-empty 'name'")
    return Curation(verb, (single,), name=name.strip())


def _parse_concept(data: dict[str, object], verb: str, where: str) -> Curation:
    def optional(key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        return required(key)

    def required(key: str) -> str:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        raise CurationError(f"{where}: {verb} needs {key!r}: a non-empty string")

    if verb == MERGE:
        ids = data.get("ids")
        if not isinstance(ids, list) or not all(isinstance(v, str) and v for v in ids) or len(set(ids)) < 2:
            raise CurationError(f"{where}: merge-concepts needs 'ids': two or more different concept ids")
        aliases = data.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise CurationError(f"{where}: merge-concepts 'aliases' must be a list of names")
        return Curation(verb, tuple(ids), name=optional("name"), aliases=tuple(aliases))
    single = required("id")
    if verb == HIDE:
        return Curation(verb, (single,))
    parent = required("parent")
    if parent == single:
        raise CurationError(f"{where}: place-concept needs a parent other than the concept itself")
    return Curation(verb, (single, parent), name=optional("name"))


def load(path: Path) -> list[Curation]:
    """The decisions in ``path`` (none when it does not exist)."""
    if not path.exists():
        return []
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except ValueError as e:
            raise CurationError(f"{path}:{number}: not JSON ({e})") from e
        out.append(parse(data, f"{path}:{number}"))
    return out


def record(path: Path, curation: Curation) -> None:
    """Append one decision to ``path`` (created with its folder when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(curation.to_json() + "\n")


def split_id(author: str, papers: Sequence[str]) -> str:
    """The id of the person split off ``author`` with these papers (stable: from the papers).

    >>> a = split_id("author:jian-zhang", ["paper:b", "paper:a"])
    >>> a == split_id("author:jian-zhang", ["paper:a", "paper:b"]), a.startswith("author:jian-zhang/split-")
    (True, True)
    """
    digest = hashlib.sha1(",".join(sorted(set(papers))).encode("utf-8")).hexdigest()[:10]
    return f"{author}/split-{digest}"


def apply(resolution: Resolution, curations: Sequence[Curation]) -> Resolution:
    """``resolution`` with the decisions applied in order (a new object; ``resolution`` is kept)."""
    if not curations:
        return resolution
    slots: dict[str, list[Slot]] = {pid: list(p.slots) for pid, p in resolution.people.items()}
    notes: dict[str, list[str]] = {pid: _evidence(p.properties) for pid, p in resolution.people.items()}
    names: dict[str, str] = {}
    for c in curations:
        if c.verb == "merge-authors":
            present = [i for i in dict.fromkeys(c.ids) if i in slots]
            for other in present[1:]:
                slots[present[0]].extend(slots.pop(other))
                notes[present[0]].extend(notes.pop(other))
                notes[present[0]].append(f"curated: {other} merged into {present[0]}")
                if other in names:
                    names.setdefault(present[0], names.pop(other))
        elif c.verb == "split-author" and c.ids[0] in slots:
            source = c.ids[0]
            taken = [s for s in slots[source] if s.paper in set(c.papers)]
            if taken and len(taken) < len(slots[source]):
                new = split_id(source, c.papers)
                slots[source] = [s for s in slots[source] if s.paper not in set(c.papers)]
                slots.setdefault(new, []).extend(taken)
                notes.setdefault(new, []).append(f"curated: split off {source} with {len(taken)} paper(s)")
        elif c.verb == "rename-author" and c.ids[0] in slots and c.name:
            names[c.ids[0]] = c.name
    out = Resolution()
    for pid in sorted(slots):
        ordered = sorted(slots[pid], key=lambda s: s.key)
        props: Properties = person_properties(ordered, notes.get(pid, []))
        if pid in names:
            props = _renamed(props, names[pid])
        out.people[pid] = Person(pid, ordered, props)
        for s in ordered:
            out.person_of[s.key] = pid
    return out


def _evidence(props: Properties) -> list[str]:
    value = props.get(EVIDENCE)
    return [str(e) for e in value] if isinstance(value, list) else []


def _renamed(props: Properties, name: str) -> Properties:
    old = props.get("name")
    aliases = props.get("aliases")
    spellings = {str(a) for a in aliases} if isinstance(aliases, list) else set()
    if isinstance(old, str):
        spellings.add(old)
    spellings.discard(name)
    renamed = dict(props)
    renamed["name"] = name
    if spellings:
        renamed["aliases"] = sorted(spellings)
    return renamed
