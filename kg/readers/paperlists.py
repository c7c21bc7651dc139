"""The papercopilot/paperlists record format: venue and year, author ids, taxonomy keywords.

paperlists publishes one JSON array per venue and year (``corl/corl2024.json``) whose records
carry no venue or year field; ``author``, ``authorids``, ``orcid`` and ``dblp`` are aligned
``;``-separated strings (an empty slot means no id).

Venue and year, first found wins: the record's own ``venue``/``year`` fields, then the paper
page in ``site`` (``content_WACV_2020``, ``aclanthology.org/2022.acl-long.1``,
``ijcai.org/proceedings/2024``, ``papers.nips.cc/.../1987``), then a ``bibtex`` entry
(``booktitle``/``year``), then the file name (``corl2024.json`` → CoRL 2024). Series names are
spelled as in :data:`SERIES` (``nips`` → NeurIPS, ``corl`` → CoRL).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

# Series keys (lower case, as in paperlists folder and file names) and their usual spelling.
SERIES: dict[str, str] = {
    "3dv": "3DV",
    "aaai": "AAAI",
    "aamas": "AAMAS",
    "acl": "ACL",
    "acml": "ACML",
    "aistats": "AISTATS",
    "alt": "ALT",
    "automl": "AutoML",
    "coling": "COLING",
    "colm": "COLM",
    "colt": "COLT",
    "corl": "CoRL",
    "cvpr": "CVPR",
    "eccv": "ECCV",
    "emnlp": "EMNLP",
    "iccv": "ICCV",
    "iclr": "ICLR",
    "icml": "ICML",
    "icra": "ICRA",
    "ijcai": "IJCAI",
    "iros": "IROS",
    "kdd": "KDD",
    "miccai": "MICCAI",
    "naacl": "NAACL",
    "neurips": "NeurIPS",
    "nips": "NeurIPS",
    "rss": "RSS",
    "siggraph": "SIGGRAPH",
    "uai": "UAI",
    "wacv": "WACV",
    "www": "WWW",
}
_FILE_NAME = re.compile(r"^(?P<series>[a-z0-9]+?)[-_ ]?(?P<year>(?:19|20)\d{2})(?:$|[-_. ])", re.I)
_SITE_PATTERNS = (
    re.compile(r"content_(?P<series>[a-z0-9]+)_(?P<year>(?:19|20)\d{2})", re.I),  # thecvf
    re.compile(r"/(?P<series>eccv)_(?P<year>(?:19|20)\d{2})/", re.I),  # ecva.net
    re.compile(r"aclanthology\.org/(?P<year>(?:19|20)\d{2})\.(?P<series>[a-z]+)-", re.I),
    re.compile(r"(?P<series>ijcai)\.org/proceedings/(?P<year>(?:19|20)\d{2})/", re.I),
    re.compile(r"(?P<series>nips)\.cc/(?:paper_files/paper|virtual|paper)/(?P<year>(?:19|20)\d{2})/", re.I),
)
_BIBTEX_FIELD = r"\b{name}\s*=\s*[{{\"]\s*(?P<value>[^}}\"]{{1,300}})"
_BIBTEX_YEAR = re.compile(_BIBTEX_FIELD.format(name="year"), re.I)
_BIBTEX_BOOKTITLE = re.compile(_BIBTEX_FIELD.format(name="(?:booktitle|journal)"), re.I)
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.I)
_DBLP = re.compile(r"^(?:https?://dblp\.org/pid/)?([a-z0-9]+/[A-Za-z0-9-]+?)(?:\.html)?$", re.I)
_ACL = re.compile(r"^/[a-z]/([a-z0-9-]+)/?$")
_IEEE = re.compile(r"^/(\d{5,})/?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def series_name(token: str) -> str | None:
    """The usual spelling of a known series.

    >>> series_name("corl"), series_name("NIPS"), series_name("foo")
    ('CoRL', 'NeurIPS', None)
    """
    return SERIES.get(token.strip().lower())


def venue_from_site(url: str) -> tuple[str, int] | None:
    """Venue series and year from a paper page URL, when the URL states both.

    >>> venue_from_site("https://openaccess.thecvf.com/content_WACV_2020/html/x.html")
    ('WACV', 2020)
    >>> venue_from_site("https://aclanthology.org/2022.naacl-main.62/"), venue_from_site("https://openreview.net/")
    (('NAACL', 2022), None)
    """
    for pattern in _SITE_PATTERNS:
        m = pattern.search(url)
        if m:
            name = series_name(m.group("series"))
            if name is not None:
                return name, int(m.group("year"))
    return None


def venue_from_bibtex(bibtex: str) -> tuple[str | None, int | None]:
    """``booktitle`` (a known series word in it) and ``year`` of a BibTeX entry.

    >>> venue_from_bibtex("@inproceedings{x, booktitle={Conference on Robot Learning (CoRL)}, year={2024}}")
    ('CoRL', 2024)
    """
    year_m = _BIBTEX_YEAR.search(bibtex)
    year = int(year_m.group("value")[:4]) if year_m and year_m.group("value")[:4].isdigit() else None
    series: str | None = None
    book = _BIBTEX_BOOKTITLE.search(bibtex)
    if book:
        for word in re.findall(r"[A-Za-z0-9]+", book.group("value")):
            found = series_name(word)  # "ALT" or "CoRL" as written, not the word "alt"
            if found is not None and (word.isupper() or found == word):
                series = found
                break
    return series, year


def venue_from_file_name(file: str) -> tuple[str, int] | None:
    """``corl2024.json`` → CoRL 2024; only series in :data:`SERIES` count.

    >>> venue_from_file_name("../data/paperlists/corl/corl2024.json")
    ('CoRL', 2024)
    >>> venue_from_file_name("neurips2023-meta.jsonl"), venue_from_file_name("listing2024.txt")
    (('NeurIPS', 2023), None)
    """
    m = _FILE_NAME.match(PurePath(file).name)
    if not m:
        return None
    name = series_name(m.group("series"))
    return (name, int(m.group("year"))) if name else None


def split_slots(value: object) -> list[str] | None:
    """The ``;``-separated slots of an id field, empty slots kept (they align with authors)."""
    if value is None:
        return None
    if isinstance(value, list):
        return ["" if v is None else str(v).strip() for v in value]
    if isinstance(value, str):
        return [s.strip() for s in value.split(";")]
    return None


def author_key(kind: str, value: str) -> str | None:
    """The normalised external id ``kind:value``, or ``None`` when ``value`` is not one.

    >>> author_key("authorids", "~Junzhe_Zhu1"), author_key("orcid", "http://orcid.org/0000-0003-1447-121x")
    ('openreview:~Junzhe_Zhu1', 'orcid:0000-0003-1447-121X')
    >>> author_key("authorids", "/o/omer-goldman/"), author_key("dblp", "295/8991.html")
    ('acl:omer-goldman', 'dblp:295/8991')
    """
    v = value.strip()
    if not v or len(v) > 200:
        return None
    if kind == "orcid":
        m = _ORCID.search(v)
        return f"orcid:{m.group(1).upper()}" if m else None
    if kind == "dblp":
        m = _DBLP.match(v)
        return f"dblp:{m.group(1)}" if m else None
    if v.startswith("~") and len(v) > 1 and not any(c.isspace() for c in v):
        return f"openreview:{v}"
    if m := _ACL.match(v):
        return f"acl:{m.group(1)}"
    if m := _IEEE.match(v):
        return f"ieee:{m.group(1)}"
    if _EMAIL.match(v):
        # OpenReview's old profiles are emails: a stable key, stored only as a hash.
        return "email:" + hashlib.sha1(v.lower().encode("utf-8")).hexdigest()[:16]
    return None


def author_keys(record: Mapping[str, Any], count: int) -> tuple[list[tuple[str, ...]], list[str]]:
    """Per author slot, its external ids (sorted); and a note per id field that does not align."""
    slots: list[set[str]] = [set() for _ in range(count)]
    notes: list[str] = []
    for field in ("authorids", "orcid", "dblp"):
        values = split_slots(record.get(field))
        if values is None or not any(values):
            continue
        if len(values) != count:
            notes.append(f"{field} has {len(values)} entries for {count} authors; its ids are ignored")
            continue
        for i, v in enumerate(values):
            key = author_key(field, v)
            if key is not None:
                slots[i].add(key)
    return [tuple(sorted(s)) for s in slots], notes


_AFF_PUNCT = re.compile(r"[^0-9a-z]+")


def affiliation_keys(text: str) -> tuple[str, ...]:
    """Comparison forms of one slot's affiliations: each ``+``-joined institution folded, its
    punctuation collapsed (paperlists joins a person's several institutions with ``+``).

    >>> affiliation_keys("University of California, Berkeley + OpenAI")
    ('openai', 'university of california berkeley')
    >>> affiliation_keys("")
    ()
    """
    from kg.core.ids import fold

    out = {_AFF_PUNCT.sub(" ", fold(part)).strip() for part in text.split("+")}
    return tuple(sorted(k for k in out if len(k) >= 3))


def author_affiliations(record: Mapping[str, Any], count: int) -> list[tuple[str, ...]]:
    """Per author slot, its :func:`affiliation_keys` from ``aff`` (``[]`` when ``aff`` is absent
    or does not align with the authors: an unaligned list would pin institutions on the wrong
    people)."""
    values = split_slots(record.get("aff"))
    if values is None or len(values) != count or not any(values):
        return []
    return [affiliation_keys(v) for v in values]


def author_institutions(record: Mapping[str, Any], count: int) -> list[tuple[str, ...]]:
    """Per author slot, its institution entries (:func:`kg.authors.institutions.slot_entries`) from
    ``aff`` and ``aff_domain``; ``[]`` when ``aff`` does not align with the authors (as
    :func:`author_affiliations`). An ``aff_domain`` that does not align is ignored."""
    from kg.authors.institutions import slot_entries

    values = split_slots(record.get("aff"))
    if values is None or len(values) != count or not any(values):
        return []
    domains = split_slots(record.get("aff_domain"))
    if domains is None or len(domains) != count:
        domains = [""] * count
    return [slot_entries(v, d) for v, d in zip(values, domains, strict=True)]


_ABBREVIATION = re.compile(r"^[A-Z&]{2,6}$")


def taxonomy_path(keyword: str) -> list[str]:
    """An IJCAI-style keyword as a topic path; the area's abbreviation segment is dropped.

    >>> taxonomy_path("Computer Vision: CV: Applications")
    ['Computer Vision', 'Applications']
    >>> taxonomy_path("Machine Learning: Deep Learning: Convolutional networks")
    ['Machine Learning', 'Deep Learning', 'Convolutional networks']
    """
    parts = [p.strip() for p in keyword.split(": ") if p.strip()]
    if len(parts) > 2 and _ABBREVIATION.match(parts[1]):
        initials = "".join(w[0] for w in parts[0].split() if w[:1].isupper())
        if parts[1].replace("&", "") == initials or len(parts[1]) <= 4:
            parts = [parts[0], *parts[2:]]
    return parts


def is_taxonomy(keywords: list[str]) -> bool:
    """True when the keywords are ``Area: Subarea`` paths (IJCAI), not free author keywords.

    >>> is_taxonomy(["Computer Vision: CV: Applications", "Machine Learning: General"])
    True
    >>> is_taxonomy(["robot learning", "LLM: a survey"])
    False
    """
    pathlike = [k for k in keywords if re.match(r"^[A-Z][^:]{2,80}: [A-Z0-9]", k)]
    return bool(keywords) and len(pathlike) * 2 > len(keywords) and len(pathlike) >= 1
