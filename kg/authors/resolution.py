"""Which author slots are one person: clustering with evidence, the same for any input order.

A *slot* is one author on one paper (:class:`Slot`): the name as printed, the external ids the
listing gave that slot, and the context that tells people apart: the paper's other authors, its
venue and year. :func:`resolve` groups slots into people (:class:`Person`); every step below
depends only on the *set* of slots given, never on their order, so a folder ingested in any
file order, or in several runs, gives the same people (the ingest re-resolves the stored slots
of every name it touches, :mod:`kg.authors.ingest`).

Rules, strongest first (each join is recorded in the person's ``mergeEvidence``):

1. **One id, one person.** Slots sharing an external id are one person (``~Ada_Lovelace1`` on
   two papers; a slot's ORCID and DBLP id tie its OpenReview profile to a slot with only the
   ORCID). Never two OpenReview profiles, or two ids of one exclusive system (ORCID, DBLP, ACL
   Anthology, IEEE), in one person: namesakes with different profile ids stay apart.
2. **A weaker id joins by evidence.** A cluster without an OpenReview profile (an old OpenReview
   email id, an ACL or IEEE id) joins every other cluster of the same name it shares a co-author
   with (failing that, an affiliation), when those can all be one person: at most one profile
   among them and no two ids of one exclusive system; otherwise the evidence is split and it
   stays apart. Failing both, it joins the one profile of its name with a paper at a venue near
   one of its own.
3. **A slot without ids joins the person its co-authors point to**: the one person of that name
   who shares a co-author with the paper (or clearly more of them: twice as many as the next,
   at least two); failing that, the one who shares an affiliation; failing that, when only one
   person carries the name, that person if they have a paper at the same venue series (any
   year, :meth:`_Entity.near`). Two or more candidates: the evidence is split and the slot stays
   with the name-keyed Author (``author:jian-zhang``).
   Rule 3 runs in rounds (a slot joined in one round lends its co-authors and venue to the next)
   until nothing changes; each round decides every slot against the same state, so the order of
   slots inside a round does not matter.

Two authors of one byline are never one person: an id two slots of one paper share is taken off
both (:func:`_without_byline_ids`), and rules 2 and 3 never join a cluster or slot to a person
holding another slot of its paper (:func:`_one_byline`).

The person's id is its OpenReview profile (``author:openreview:~Ada_Lovelace1``), else its
strongest other id (:data:`kg.core.ids.AUTHOR_ID_KINDS`), else its name (``author:ada-lovelace``):
the ids the graph used before, so a person nothing joined keeps its node.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from kg.core.collector import collector_paused
from kg.core.ids import AUTHOR_ID_KINDS, author_id, external_author_id
from kg.core.merge import merge_all, normalize_properties
from kg.core.models import Properties

PROFILE = "openreview"
# Id systems where a person has one id: two different ids of one system are two people. An email
# is not one of them (one person, several addresses).
EXCLUSIVE: frozenset[str] = frozenset({"openreview", "orcid", "dblp", "acl", "ieee"})
# ...except IEEE beside a profile: IEEE Xplore gives one researcher several author ids now and
# then (Dieter Fox: 73 CoRL/ICRA/IROS slots under ieee:37284329000, and one slot of his OpenReview
# profile cluster under ieee:266309835820341), and an OpenReview profile, where there is one, is
# the id that tells namesakes apart. Vetoing on IEEE there kept his IEEE cluster (93 papers) apart
# from his profile (41) despite 31 shared co-authors, and split every id-less slot between them:
# the misses behind gold seed 1's pairwise recall of 0.942 (bench/author_identity.py).
WEAK_BESIDE_PROFILE: frozenset[str] = frozenset({"ieee"})
MAX_ROUNDS = 10
EVIDENCE = "mergeEvidence"
SHOWN_COAUTHORS = 3

SlotKey = tuple[str, str, int]  # (paper id, name key, n-th author of that name on the paper)


def name_key(name: str) -> str:
    """The name a slot is grouped by: the name-keyed Author id (folded, punctuation-insensitive).

    >>> name_key("Korbinian Pöppel") == name_key("korbinian poppel")
    True
    """
    return author_id(name)


@dataclass(frozen=True, slots=True)
class Slot:
    """One author of one paper, with what tells people apart."""

    paper: str
    name: str  # as printed, nickname split off
    keys: tuple[str, ...] = ()  # normalised external ids (``openreview:~Ada_L1``, ``email:…``)
    coauthors: frozenset[str] = frozenset()  # name keys of the paper's other authors
    venue: str | None = None  # series ("NeurIPS")
    year: int | None = None
    nickname: str | None = None
    ordinal: int = 0  # two authors of one name on one paper (two people with two ids) are 0 and 1
    affiliations: frozenset[str] = frozenset()  # folded institutions (paperlists ``aff``)
    group: str = ""  # :func:`name_key` of ``name`` (filled in when not given)
    key: SlotKey = field(default=("", "", 0), compare=False)  # (paper, group, ordinal), filled in

    def __post_init__(self) -> None:
        if not self.group:
            object.__setattr__(self, "group", name_key(self.name))
        object.__setattr__(self, "key", (self.paper, self.group, self.ordinal))

    def properties(self) -> Properties:
        """The Author properties this slot contributes (what ``kg.authors.v1`` writes)."""
        props: Properties = {"name": self.name}
        if self.nickname:
            props["nickname"] = self.nickname
        if self.keys:
            props["externalIds"] = sorted(self.keys)
        return props


@dataclass
class Person:
    """One resolved person: the slots it holds, its node id and properties."""

    id: str
    slots: list[Slot]
    properties: Properties


@dataclass
class Resolution:
    """The people of a set of slots: ``person_of`` maps each slot to its person's id."""

    people: dict[str, Person] = field(default_factory=dict)
    person_of: dict[SlotKey, str] = field(default_factory=dict)

    def drop_slots(self) -> None:
        """Let go of each person's slot list. Writing records reads only ``person_of`` and each
        person's id and properties; the slots are for resolving and curating, which are done by
        then, and are most of a resolution's memory (at 23,602 papers: 109 MB with them, 41 without)."""
        for person in self.people.values():
            person.slots = []


class _Entity:
    """A growing cluster of slots with the evidence it offers to the next joiner."""

    __slots__ = (
        "affiliations",
        "coauthors",
        "evidence",
        "keys",
        "names",
        "papers",
        "profile",
        "slots",
        "venues",
    )

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self.papers: set[str] = set()
        self.names: set[str] = set()
        self.keys: set[str] = set()
        self.coauthors: set[str] = set()
        self.venues: set[tuple[str, int | None]] = set()
        self.evidence: list[str] = []
        self.profile: str | None = None
        self.affiliations: set[str] = set()

    def add(self, slot: Slot) -> None:
        self.slots.append(slot)
        self.papers.add(slot.paper)
        self.names.add(slot.group)
        for k in slot.keys:
            if k not in self.keys:
                self.keys.add(k)
                if k.startswith(PROFILE + ":") and (self.profile is None or k < self.profile):
                    self.profile = k
        self.coauthors.update(slot.coauthors)
        self.affiliations.update(slot.affiliations)
        if slot.venue:
            self.venues.add((slot.venue, slot.year))

    def absorb(self, other: _Entity) -> None:
        for slot in other.slots:
            self.add(slot)
        self.evidence.extend(other.evidence)

    def systems(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for k in self.keys:
            system, _, value = k.partition(":")
            out[system].add(value)
        return out

    def node_id(self) -> str:
        for kind in AUTHOR_ID_KINDS:
            found = [k for k in self.keys if k.startswith(kind + ":")]
            if found:
                return external_author_id(min(found))
        return min(self.names)

    def label(self) -> str:
        """How evidence lines name this cluster: its strongest id (emails are hashes already)."""
        return self.node_id().removeprefix("author:")

    def shared(self, coauthors: Iterable[str], names: set[str]) -> set[str]:
        return (self.coauthors & set(coauthors)) - self.names - names

    def near(self, venue: str | None) -> bool:
        """Whether this person has a paper at ``venue`` (a series: "AISTATS"), in any year.

        Why any year: the rule only runs when one person carries the name and nothing else
        speaks against it. A window of 3 years kept Yoshua Bengio's AISTATS 2003 paper (14 years
        before his next AISTATS paper) on a second, name-keyed Author; with any year he is one
        Author with all 120 papers of the 68-file batch, and the gold set (seed 4) went from
        P 0.9903 / R 0.9947 to P 0.9904 / R 0.9952 (bench/author_identity.py).
        """
        return venue is not None and any(v == venue for v, _ in self.venues)

    def near_any(self, venues: Iterable[tuple[str, int | None]]) -> bool:
        return any(self.near(v) for v, _ in venues)


def _conflict(a: _Entity, b: _Entity) -> bool:
    """True when joining would put two ids of one exclusive system in one person (IEEE ids do not
    count when either side holds an OpenReview profile: :data:`WEAK_BESIDE_PROFILE`)."""
    sa, sb = a.systems(), b.systems()
    systems = EXCLUSIVE - WEAK_BESIDE_PROFILE if a.profile or b.profile else EXCLUSIVE
    return any(system in sb and sa[system] != sb[system] for system in systems & sa.keys())


def _two_profiles(a: _Entity, b: _Entity) -> bool:
    """True when ``a`` and ``b`` hold different OpenReview profiles: namesakes, never joined.

    Other exclusive ids do not veto a shared id: listings do carry a wrong ORCID or DBLP id now
    and then, and a profile id two slots share is the stronger statement.
    """
    return a.profile is not None and b.profile is not None and a.profile != b.profile


def _shown(names: Iterable[str]) -> str:
    ordered = sorted(names)
    text = ", ".join(n.removeprefix("author:") for n in ordered[:SHOWN_COAUTHORS])
    return text + (f" and {len(ordered) - SHOWN_COAUTHORS} more" if len(ordered) > SHOWN_COAUTHORS else "")


def _dedupe(slots: Iterable[Slot]) -> list[Slot]:
    """One slot per key: two listings of one paper give one slot, ids unioned."""
    merged: dict[SlotKey, Slot] = {}
    for s in slots:
        old = merged.get(s.key)
        if old is None:
            merged[s.key] = s
        elif old != s:
            merged[s.key] = Slot(
                paper=s.paper,
                name=min(old.name, s.name),
                keys=tuple(sorted(set(old.keys) | set(s.keys))),
                coauthors=old.coauthors | s.coauthors,
                venue=min((v for v in (old.venue, s.venue) if v), default=None),
                year=min((y for y in (old.year, s.year) if y is not None), default=None),
                nickname=min((n for n in (old.nickname, s.nickname) if n), default=None),
                ordinal=s.ordinal,
                affiliations=old.affiliations | s.affiliations,
                group=s.group,
            )
    return [merged[k] for k in sorted(merged)]


def _id_clusters(slots: list[Slot]) -> list[_Entity]:
    """Rule 1: union-find over shared ids, refusing a union of two OpenReview profiles."""
    parent = list(range(len(slots)))
    entity: dict[int, _Entity] = {}
    for i, s in enumerate(slots):
        entity[i] = _Entity()
        entity[i].add(s)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, s in enumerate(slots):
        for k in s.keys:
            j = first.setdefault(k, i)
            a, b = root(i), root(j)
            if a == b or _two_profiles(entity[a], entity[b]):
                continue
            a, b = min(a, b), max(a, b)
            parent[b] = a
            entity[a].absorb(entity.pop(b))
    return [entity[i] for i in sorted(entity)]


def _without_byline_ids(slots: list[Slot]) -> list[Slot]:
    """The slots with every id that two slots of one paper share taken off both: an id on two
    authors of one byline is a listing's mistake and tells neither apart (rule 1 would make them
    one person, who could keep only one of the paper's two AUTHORED edges)."""
    seen: Counter[tuple[str, str]] = Counter((s.paper, k) for s in slots for k in s.keys)
    return [
        replace(s, keys=tuple(k for k in s.keys if seen[(s.paper, k)] == 1))
        if any(seen[(s.paper, k)] > 1 for k in s.keys)
        else s
        for s in slots
    ]


def _one_byline(a: _Entity, b: _Entity) -> bool:
    """Whether ``a`` and ``b`` hold slots of one paper: two authors of one byline are two people
    (the veto of rules 2 and 3).

    Why: a listing now and then gives an author another's id (paperlists gave Jeff Schneider's
    slot Barnabas Poczos's email on a paper without him), and rule 3 then joined Jeff's id-less
    slots, on papers the two share, to the cluster carrying both names. A person with two slots
    of one paper also cannot be stored (one AUTHORED edge per author and paper): the second slot
    was lost, and the next ingest, re-resolving the stored slots without it, moved people (1 of
    16,844 at 10k).
    """
    return not a.papers.isdisjoint(b.papers)


def _pick(candidates: list[tuple[_Entity, set[str]]]) -> tuple[_Entity, set[str]] | None:
    """The candidate the shared co-authors point to: the only one, or one with at least twice
    the shared co-authors of the next (and at least two); ``None`` when the evidence is split."""
    if len(candidates) == 1:
        return candidates[0]
    ranked = sorted(candidates, key=lambda c: (-len(c[1]), c[0].node_id()))
    best, second = ranked[0], ranked[1]
    if len(best[1]) >= 2 and len(best[1]) >= 2 * len(second[1]):
        return best
    return None


class _Joins:
    """Evidence lines per entity, gathered while joining (summed per rule at the end)."""

    def __init__(self) -> None:
        self.slots: dict[int, dict[str, list[Slot]]] = defaultdict(lambda: defaultdict(list))
        self.shared_by: dict[tuple[int, SlotKey], set[str]] = {}

    def note(self, e: _Entity, rule: str, slot: Slot, shared: set[str]) -> None:
        self.slots[id(e)][rule].append(slot)
        self.shared_by[(id(e), slot.key)] = shared

    def lines(self, e: _Entity) -> list[str]:
        out = []
        for rule, slots in sorted(self.slots[id(e)].items()):
            if rule in ("co-authors", "affiliation"):
                shared = {x for s in slots for x in self.shared_by[(id(e), s.key)]}
                out.append(f"{len(slots)} paper(s) without ids joined by shared {rule} ({_shown(shared)})")
            else:
                venues = ", ".join(sorted({str(s.venue) for s in slots}))
                out.append(f"{len(slots)} paper(s) without ids joined by venue ({venues})")
        return out


def _decide(
    candidates: list[_Entity],
    coauthors: Iterable[str],
    names: set[str],
    venues: set[tuple[str, int | None]],
    affiliations: frozenset[str] = frozenset(),
) -> tuple[_Entity | None, str, set[str], bool]:
    """``(entity, rule, shared co-authors, split)`` for one joiner against its candidates."""
    co = [(e, sh) for e in candidates if (sh := e.shared(coauthors, names))]
    if co:
        picked = _pick(co)
        return (picked[0], "co-authors", picked[1], False) if picked else (None, "", set(), True)
    at_aff = [e for e in candidates if e.affiliations & affiliations]
    if len(at_aff) == 1:
        return at_aff[0], "affiliation", at_aff[0].affiliations & affiliations, False
    if len(at_aff) > 1:
        return None, "", set(), True
    if len(candidates) > 1:  # several people carry the name: a venue does not tell them apart
        return None, "", set(), sum(1 for e in candidates if e.near_any(venues)) > 1
    if candidates and candidates[0].near_any(venues):
        return candidates[0], "venue", set(), False
    return None, "", set(), False


def _compatible(entities: list[_Entity]) -> bool:
    """Whether these entities can all be one person: at most one profile, no exclusive clash."""
    return len({e.profile for e in entities if e.profile}) <= 1 and not any(
        _conflict(a, b) for i, a in enumerate(entities) for b in entities[i + 1 :]
    )


def _weak_targets(w: _Entity, by_name: dict[str, list[_Entity]]) -> tuple[list[_Entity], str, set[str]]:
    """Rule 2 for one cluster without a profile: the entities of its name it shares co-authors
    with, else an affiliation with (all of them, when they can be one person: one email
    cluster often bridges two others of the same researcher), else the one profile with a paper
    at a venue near one of its own."""
    candidates = [x for x in {id(x): x for n in sorted(w.names) for x in by_name[n]}.values() if x is not w]
    candidates = [x for x in candidates if not _conflict(x, w)]
    co = [(x, sh) for x in candidates if (sh := x.shared(w.coauthors, w.names))]
    if co:
        targets = [x for x, _ in co]
        return (
            (targets, "co-authors", set().union(*(sh for _, sh in co)))
            if _compatible(targets)
            else ([], "", set())
        )
    at_aff = [x for x in candidates if x.affiliations & w.affiliations]
    if at_aff:
        shared_aff = set().union(*(x.affiliations & w.affiliations for x in at_aff))
        return (at_aff, "affiliation", shared_aff) if _compatible(at_aff) else ([], "", set())
    at_venue = [x for x in candidates if x.profile and x.near_any(w.venues)]
    return (at_venue, "venue", set()) if len(at_venue) == 1 else ([], "", set())


def _keeps(a: _Entity, b: _Entity) -> bool:
    """Whether ``a`` rather than ``b`` stays as the joined entity: a profile, else the smaller id."""
    if (a.profile is None) != (b.profile is None):
        return a.profile is not None
    return a.node_id() < b.node_id()


def _join(clusters: list[_Entity], idless: list[Slot]) -> tuple[list[_Entity], list[Slot], dict[str, int]]:
    """Rules 2 and 3, in rounds until nothing changes.

    Each round decides every joiner against the entities as the previous round left them:
    clusters without a profile against the other entities of their names, slots without ids
    against every entity of their name; then applies the decisions (joins of clusters in id
    order, skipping one that would join two exclusive ids). Returns the entities, the slots
    nothing claimed, and per name the papers kept apart because the evidence was split.
    """
    entities = sorted(clusters, key=_Entity.node_id)
    by_name: dict[str, list[_Entity]] = defaultdict(list)
    for e in entities:
        for n in e.names:
            by_name[n].append(e)
    alive = {id(e): e for e in entities}
    rep: dict[int, _Entity] = {}

    def find(e: _Entity) -> _Entity:
        while id(e) in rep:
            e = rep[id(e)]
        return e

    joins = _Joins()
    pending_weak = [e for e in entities if e.profile is None and any(len(by_name[n]) > 1 for n in e.names)]
    pending = [s for s in idless if s.group in by_name]
    unclaimed = [s for s in idless if s.group not in by_name]
    split: dict[SlotKey, bool] = {}
    dirty: set[str] | None = None  # names whose entities changed last round (None: all)
    for _ in range(MAX_ROUNDS):
        weak_moves = []
        for w in pending_weak:
            if dirty is not None and w.names.isdisjoint(dirty):
                continue  # nothing it would be compared with changed: same decision as before
            targets, rule, shared = _weak_targets(w, by_name)
            for target in targets:
                weak_moves.append((w.label(), target.label(), w, target, rule, shared))
        slot_moves = []
        for s in pending:
            if dirty is not None and s.group not in dirty:
                continue
            venues = {(s.venue, s.year)} if s.venue else set()
            candidates = [e for e in by_name[s.group] if s.paper not in e.papers]  # _one_byline
            claimed, rule, shared, is_split = _decide(
                candidates, s.coauthors, {s.group}, venues, s.affiliations
            )
            split[s.key] = is_split
            if claimed is not None:
                slot_moves.append((s, claimed, rule, shared))
        if not weak_moves and not slot_moves:
            break
        dirty = set()
        for w_label, x_label, w, x, rule, shared in sorted(weak_moves, key=lambda m: (m[0], m[1])):
            a, b = find(w), find(x)
            if a is b or _conflict(a, b) or _two_profiles(a, b) or _one_byline(a, b):
                continue
            keep, drop = (a, b) if _keeps(a, b) else (b, a)
            why = f"shared {rule} {_shown(shared)}" if shared else f"same {rule}"
            keep.evidence.append(f"{w_label} joined {x_label}: same name, {why}")
            keep.absorb(drop)
            dirty.update(keep.names)
            rep[id(drop)] = keep
            del alive[id(drop)]
            for n in drop.names:
                by_name[n] = [e for e in by_name[n] if e is not drop]
                if keep not in by_name[n]:
                    by_name[n].append(keep)
        moved: set[SlotKey] = set()
        for s, e, rule, shared in slot_moves:
            target = find(e)
            if s.paper in target.papers:  # another slot of its paper joined it this round
                continue
            moved.add(s.key)
            target.add(s)
            dirty.update(target.names)
            joins.note(target, rule, s, shared)
        pending_weak = [
            w for w in pending_weak if id(w) in alive and any(len(by_name[n]) > 1 for n in w.names)
        ]
        pending = [s for s in pending if s.key not in moved]
    out = [e for e in entities if id(e) in alive]
    for e in out:
        e.evidence.extend(joins.lines(e))
    kept: dict[str, int] = defaultdict(int)
    for s in pending:
        if split.get(s.key):
            kept[s.group] += 1
    return out, unclaimed + pending, kept


def resolve(slots: Iterable[Slot]) -> Resolution:
    """The people of ``slots`` (see the module docstring); any order of ``slots`` gives the same.

    The cyclic collector is paused meanwhile: the clusters are hundreds of thousands of small
    objects that all live to the end, and collections scanning them were a third of the time.
    """
    with collector_paused():
        return _resolve(slots)


def _properties(slots: list[Slot]) -> Properties:
    """The merged Author properties of these slots (each distinct slot map merged once)."""
    maps: dict[tuple[str, str | None, tuple[str, ...]], Properties] = {}
    for s in slots:
        maps.setdefault((s.name, s.nickname, s.keys), s.properties())
    if len(maps) == 1:  # normalize_properties(p) == merge_properties({}, p), without the ranking
        return normalize_properties(next(iter(maps.values())))
    return merge_all(maps[k] for k in sorted(maps, key=lambda k: (k[0], k[1] or "", k[2])))


def person_properties(slots: list[Slot], evidence: Iterable[str]) -> Properties:
    """A person's Author properties: its slots' merged, and its evidence as a sorted set."""
    props = _properties(slots)
    lines = sorted(set(evidence))
    if lines:
        props[EVIDENCE] = lines
    return props


def _resolve(slots: Iterable[Slot]) -> Resolution:
    unique = _without_byline_ids(_dedupe(slots))
    entities, left, kept = _join(
        _id_clusters([s for s in unique if s.keys]), [s for s in unique if not s.keys]
    )
    named: dict[str, _Entity] = {}
    for s in left:
        named.setdefault(s.group, _Entity()).add(s)
    for group, e in named.items():
        if kept.get(group):
            e.evidence.append(
                f"kept apart: {kept[group]} paper(s) whose co-authors or venue point to several people"
            )
    out = Resolution()
    for e in [*entities, *named.values()]:
        pid = e.node_id()
        if pid in out.people:  # cannot happen by construction; joined rather than lost if it did
            raise AssertionError(f"two people resolved to {pid}")
        slots_sorted = sorted(e.slots, key=lambda s: s.key)
        props = person_properties(slots_sorted, e.evidence)
        out.people[pid] = Person(pid, slots_sorted, props)
        for s in slots_sorted:
            out.person_of[s.key] = pid
    return out
