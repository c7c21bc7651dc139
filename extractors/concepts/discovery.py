"""Open discovery of what the vocabulary lacks: acronym definitions, introduced names, models.

All three work on the shared :class:`~extractors.concepts.tokens.TokenStream`, so they behave
identically in fast and accurate mode.

* :func:`find_acronyms`: "Sparse Mixture of Experts (SMoE)" and "GRAPE (Group RepresentAtional
  Position Encoding)", with the Schwartz & Hearst (2003) letter alignment, which also handles
  acronyms spelt by capitals inside words ("Turing mAchine Imitation Learning (TAIL)").
* :func:`find_introduced`: names a paper introduces ("we propose X", "we introduce X",
  "called X", "dubbed X", "named X", "termed X").
* :func:`find_named_entities`: models and datasets named in the text (``Qwen2.5-7B``,
  ``DeepSeek-R1``, ``xLSTM 7B``, ``GSM8K``), typed ``MODEL`` or ``DATASET`` from a family list,
  a parameter-count suffix or the word that follows ("... dataset", "... model").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from extractors.concepts.tokens import (
    ALPHA,
    CAPS,
    DIGIT,
    INTRO_VERBS,
    MODEL_WORD,
    NAME,
    NAMING_WORDS,
    PAREN,
    PLAIN_MODEL_NAMES,
    TRIGGER,
    TokenStream,
)
from kg.core.normalize import acronym_key, is_name_like

__all__ = [
    "Acronym",
    "Introduced",
    "NamedEntity",
    "find_acronyms",
    "find_introduced",
    "find_named_entities",
    "looks_like_acronym",
    "schwartz_hearst",
]

_SIZE = re.compile(r"^\d+(?:\.\d+)?[BMKbm]$")
MODEL_FAMILIES = frozenset(
    """gpt chatgpt llama llama2 llama3 codellama alpaca vicuna qwen qwen2 qwq mistral mixtral gemma
    gemini phi claude deepseek bert roberta deberta distilbert albert electra xlnet t5 flan bart
    vit deit swin resnet resnext vgg alexnet inception densenet efficientnet mobilenet unet clip
    blip llava dino dinov2 sam whisper wav2vec hubert falcon opt pythia bloom bloomz palm
    chinchilla gopher olmo yi internlm baichuan chatglm glm starcoder codegen santacoder mamba
    xlstm rwkv retnet dall stable imagen midjourney sora wizardlm zephyr orca tulu openchat
    command cohere jamba granite nemotron minicpm smollm tinyllama stablelm mpt redpajama
    gptj kimi ernie pangu galactica megatron
    """.split()
)
DATASET_NAMES = frozenset(
    """gsm8k math mmlu humaneval mbpp imagenet cifar cifar10 cifar100 mnist fashion svhn coco
    squad glue superglue wikitext ptb bigbench hellaswag arc truthfulqa alpacaeval mtbench
    winogrande piqa boolq triviaqa naturalquestions nq hotpotqa celeba lsun ffhq omniglot
    shapenet kitti cityscapes voc ade20k librispeech wmt iwslt c4 pile dolma slimpajama
    commoncrawl openwebtext bookcorpus wikipedia mimic ogb qm9 zinc cora citeseer pubmed
    reddit yelp imdb sst sst2 mnli snli qnli rte cola mrpc qqp stsb xnli xsum
    gsm mathqa aqua svamp asdiv strategyqa commonsenseqa csqa obqa openbookqa sciq race
    drop quac coqa msmarco beir mteb lambada ifeval gpqa livecodebench swebench apps
    codecontests minif2f aime amc olympiadbench theoremqa agieval bbh mmmu vqa vqav2 gqa
    okvqa textvqa docvqa chartqa scienceqa ego4d kinetics ucf101 hmdb51 mujoco atari
    procgen dmc d4rl minigrid alfworld webshop toolbench
    """.split()
)
_DATASET_WORDS = frozenset({"dataset", "benchmark", "corpus", "suite", "leaderboard"})
_MODEL_WORDS = frozenset({"model", "llm", "A:LLM", "lm", "A:LM", "checkpoint", "backbone"})
_INTRO_SUBJECTS = frozenset({"we", "paper", "work", "article", "study", "here"})
_DETERMINERS = frozenset({"a", "an", "the", "our", "this", "these", "its", "their"})
_NOTION = frozenset({"notion", "concept", "idea", "framework", "problem", "task", "paradigm", "setting"})
# Words after which a name-like token is a modifier, not the name ("UCB-based algorithm").
_COMPOUND_TAILS = frozenset(
    {"based", "like", "style", "aware", "free", "driven", "guided", "specific", "level", "wise", "type"}
)
_STOP_SCAN = frozenset(
    {
        "that",
        "which",
        "to",
        "for",
        "where",
        "in",
        "on",
        "with",
        "by",
        "from",
        "and",
        "or",
        "but",
        "as",
        "when",
        "while",
        "if",
        "whose",
        "into",
        "across",
        "via",
        "using",
        "under",
        "over",
        "between",
        "than",
    }
)


def looks_like_acronym(surface: str) -> bool:
    """Short forms worth aligning: 2-12 chars, starts alphanumeric, at least two capitals.

    >>> [looks_like_acronym(s) for s in ["SMoE", "TAIL", "MFPs", "FoX", "i.e.", "Bayes", "CL"]]
    [True, True, True, True, False, False, True]
    """
    if not 2 <= len(surface) <= 12 or not surface[0].isalnum():
        return False
    caps = sum(c.isupper() for c in surface)
    return caps >= 2 and all(c.isalnum() or c in "-+." for c in surface) and not surface.endswith(".")


def schwartz_hearst(short: str, long: str) -> int:
    """Start offset in ``long`` of the definition of ``short``, or -1 (Schwartz & Hearst 2003).

    Letters of the short form are found right to left in the long form; the first one must
    begin a word. Case is ignored, so capitals inside words count ("mAchine" gives "A").

    >>> long = "we propose Turing mAchine Imitation Learning"
    >>> long[schwartz_hearst("TAIL", long):]
    'Turing mAchine Imitation Learning'
    >>> schwartz_hearst("XYZ", "sparse mixture of experts")
    -1
    """
    s = len(short) - 1
    li = len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while li >= 0 and (long[li].lower() != c or (s == 0 and li > 0 and long[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return -1
        li -= 1
        s -= 1
    return li + 1


@dataclass
class Acronym:
    """An acronym defined in the text (role: discovery output)."""

    short: str  # as written, plural stripped ("MFP")
    key: str  # token key of the short form
    long_start: int  # stream token span of the long form
    long_end: int
    paren: tuple[int, int]  # stream span of "( SHORT )" or of "( LONG )"
    long_text: str
    introduced_by_paren: bool = False  # "NAME (Long Form)": the name comes first


@dataclass
class Introduced:
    """A name the paper introduces (role: discovery output)."""

    start: int  # stream span of the name
    end: int
    surface: str
    expansion: str | None = None  # "Group RepresentAtional Position Encoding"
    acronym: str | None = None


@dataclass
class NamedEntity:
    """A model or dataset named in the text (role: discovery output)."""

    start: int
    end: int
    surface: str
    kind: str  # "MODEL" | "DATASET"
    family: str  # "qwen", "gsm8k"
    spans: list[tuple[int, int]] = field(default_factory=list)


def _surface(stream: TokenStream, text: str, a: int, b: int) -> str:
    return text[stream.starts[a] : stream.ends[b - 1]]


def _group_end(stream: TokenStream, i: int) -> int:
    """End of the run of tokens tightly attached to token ``i`` (``Qwen2.5 - 7B``)."""
    n = len(stream)
    j = i + 1
    while j < n and stream.tight[j] and stream.cls[j] != "." and (stream.text[j][0].isalnum()):
        j += 1
    return j


def find_acronyms(stream: TokenStream, text: str) -> list[Acronym]:
    """Acronym definitions "Long Form (SF)" and "SF (Long Form)" in the stream."""
    out: list[Acronym] = []
    toks = stream.text
    cls = stream.cls
    n = len(toks)
    seen: set[str] = set()
    flags = stream.flags
    for i in stream.marked:
        if not flags[i] & PAREN or i < 1 or i >= n - 2:
            continue
        close = i + 1
        while close < n and close <= i + 12 and toks[close] != ")":
            close += 1
        if close >= n or toks[close] != ")":
            continue
        inner = _surface(stream, text, i + 1, close) if close > i + 1 else ""
        if close - (i + 1) <= 3 and looks_like_acronym(inner.replace(" ", "")):
            # Long Form (SF)
            short = (
                acronym_key(inner)
                if inner.endswith("s") and len(inner) > 2 and inner[-2].isupper()
                else inner
            )
            letters = sum(c.isalnum() for c in short)
            window = min(letters + 5, 2 * letters)
            a = i
            words = 0
            while a > 0 and words < window and cls[a - 1] not in (".", "M"):
                a -= 1
                if not stream.glued[a]:
                    words += 1
            if a == i:
                continue
            segment = text[stream.starts[a] : stream.ends[i - 1]]
            off = schwartz_hearst(short, segment)
            if off < 0:
                continue
            ls = bisect_left(stream.starts, stream.starts[a] + off)
            while ls < i and cls[ls] in ("F", "V", "R"):
                ls += 1
            if ls >= i or i - ls > window + 1 or cls[i - 1] in ("F", "V"):
                continue
            if ls == i - 1 and stream.keys[ls].startswith("A:"):
                continue
            key = stream.keys[i + 1] if close == i + 2 else short.casefold()
            if key in seen:
                continue
            seen.add(key)
            out.append(Acronym(short, key, ls, i, (i, close + 1), _surface(stream, text, ls, i)))
        elif close - (i + 1) >= 2 and looks_like_acronym(toks[i - 1]) and not stream.tight[i]:
            # SF (Long Form): the long form must be exactly the parenthesised words.
            short = toks[i - 1]
            segment = _surface(stream, text, i + 1, close)
            off = schwartz_hearst(short, segment)
            if off != 0 or cls[close - 1] in ("F", "V"):
                continue
            key = stream.keys[i - 1]
            if key in seen:
                continue
            seen.add(key)
            out.append(Acronym(short, key, i + 1, close, (i, close + 1), segment, introduced_by_paren=True))
    return out


def _sentence_bounds(stream: TokenStream, i: int) -> tuple[int, int]:
    a = i
    while a > 0 and stream.text[a - 1] not in (".", "!", "?", ";"):
        a -= 1
    b = i
    n = len(stream)
    while b < n and stream.text[b] not in (".", "!", "?", ";"):
        b += 1
    return a, b


def _name_at(stream: TokenStream, j: int, vocab_firsts: frozenset[str]) -> int:
    """End of a name starting at ``j`` ("OFU-DMNL", "xLSTM 7B"), or ``j`` if none starts there."""
    t = stream.text[j]
    if not (is_name_like(t) or looks_like_acronym(t)):
        return j
    end = _group_end(stream, j)
    # "UCB-based": a modifier, not the name.
    if end - j >= 2 and stream.keys[end - 1] in _COMPOUND_TAILS:
        return j
    if end == j + 1 and stream.keys[j] in vocab_firsts and stream.keys[j].startswith("A:"):
        return j  # a known acronym such as "LLM" or "SGD" is not a new name
    if end < len(stream) and _SIZE.match(stream.text[end]) and not stream.tight[end]:
        end += 1
    return end


def find_introduced(
    stream: TokenStream, text: str, acronyms: list[Acronym], vocab_firsts: frozenset[str]
) -> list[Introduced]:
    """Names the paper introduces, in order of appearance (deduplicated by surface)."""
    toks = stream.text
    keys = stream.keys
    cls = stream.cls
    n = len(toks)
    acr_by_start = {a.long_start: a for a in acronyms if not a.introduced_by_paren}
    acr_by_name = {a.paren[0] - 1: a for a in acronyms if a.introduced_by_paren}
    found: list[Introduced] = []

    def add(start: int, end: int) -> None:
        if end <= start:
            return
        if start in acr_by_start:
            a = acr_by_start[start]
            found.append(Introduced(a.long_start, a.long_end, a.long_text, a.long_text, a.short))
            return
        surface = _surface(stream, text, start, end).strip(" ,;:\"'")
        expansion = None
        acronym = None
        if end - 1 in acr_by_name:
            expansion = acr_by_name[end - 1].long_text
        elif end < n and toks[end] == "(":
            for a in acronyms:
                if a.paren[0] == end and not a.introduced_by_paren:
                    acronym = a.short
        if surface:
            found.append(Introduced(start, end, surface, expansion, acronym))

    flags = stream.flags
    for k in stream.marked:
        if not flags[k] & TRIGGER:
            continue
        lower = toks[k].lower()
        if lower in NAMING_WORDS:
            # "called X", "dubbed X", "which we call X"
            j = k + 1
            if j < n and toks[j] in ('"', "“", "'"):
                close = j + 1
                while close < n and close < j + 12 and toks[close] not in ('"', "”", "'"):
                    close += 1
                if close < n and close > j + 1:
                    e = close
                    while e > j + 1 and cls[e - 1] == ".":
                        e -= 1
                    add(j + 1, e)
                continue
            while j < n and keys[j] in _DETERMINERS:
                j += 1
            if j >= n:
                continue
            end = _name_at(stream, j, vocab_firsts)
            if end > j:
                add(j, end)
                continue
            e = j
            while e < n and e < j + 6 and cls[e] in ("N", "A", "D"):
                e += 1
            while e > j and cls[e - 1] != "N":
                e -= 1
            if e > j and (e >= n or cls[e] in (".", "F", "V", "R")):
                add(j, e)
            continue
        if lower not in INTRO_VERBS:
            continue
        s0, s1 = _sentence_bounds(stream, k)
        subject = False
        for b in range(max(s0, k - 4), k):
            if keys[b] in _INTRO_SUBJECTS:
                subject = True
        if not subject:
            continue
        j = k + 1
        bare = True
        while j < min(s1, k + 14):
            t = toks[j]
            key = keys[j]
            if j in acr_by_start and (bare or j <= k + 4):
                add(j, acr_by_start[j].long_end)
                break
            end = _name_at(stream, j, vocab_firsts)
            if end > j:
                add(j, end)
                break
            if key in _DETERMINERS or (key in _NOTION and j + 1 < n and keys[j + 1] == "of"):
                bare = False
                if key in _NOTION:
                    j += 2
                    bare = True
                    continue
                j += 1
                continue
            if (
                bare
                and cls[j] in ("N", "A")
                and j == k + 1
                or (bare and cls[j] in ("N", "A") and keys[j - 1] == "of")
            ):
                # "we introduce averaging complexity, a framework ...": a bare noun phrase.
                e = j
                while e < s1 and e < j + 5 and cls[e] in ("N", "A", "D"):
                    e += 1
                while e > j and cls[e - 1] != "N":
                    e -= 1
                if (
                    e > j
                    and e < n
                    and (toks[e] in (",", "(", "—", ":") or keys[e] in ("as", "which", "that"))
                ):
                    add(j, e)
                break
            if t == "," and j + 1 < s1 and _name_at(stream, j + 1, vocab_firsts) > j + 1:
                add(j + 1, _name_at(stream, j + 1, vocab_firsts))  # "a UCB-based algorithm, OFU-DMNL"
                break
            if t in (",", "(", ")") or cls[j] in ("V", "R", "M") or key in _STOP_SCAN:
                break
            bare = False
            j += 1
    # Deduplicate by surface, first occurrence wins.
    seen: set[str] = set()
    unique: list[Introduced] = []
    for item in found:
        fold = item.surface.casefold()
        if fold not in seen:
            seen.add(fold)
            unique.append(item)
    return unique


def _family(surface: str) -> str:
    m = re.match(r"[A-Za-z]+", surface)
    return m.group(0).lower() if m else ""


def find_named_entities(
    stream: TokenStream, text: str, skip_keys: set[str], vocab_index: dict[tuple[str, ...], str]
) -> list[NamedEntity]:
    """Models and datasets named in the text (one entry per surface, with all its spans).

    A candidate must look like a name (capitals inside the word, an all-caps acronym, or
    letters with digits), except for a few model families that are plain capitalised words
    ("Llama", "Mistral"). Its kind comes from the family lists, a parameter-count suffix
    ("7B") or the next word ("... dataset", "... model").
    """
    toks = stream.text
    keys = stream.keys
    n = len(toks)
    by_surface: dict[str, NamedEntity] = {}
    flags = stream.flags
    last_end = 0
    for i in stream.marked:
        if i < last_end:
            continue
        f = flags[i]
        if not ((f & ALPHA and f & (NAME | CAPS | DIGIT)) or f & MODEL_WORD):
            continue
        t = toks[i]
        if i > 0 and stream.tight[i] and toks[i - 1][:1].isalnum():
            continue
        end = _group_end(stream, i)
        has_size = any(_SIZE.match(toks[j]) for j in range(i + 1, end))
        if end < n and _SIZE.match(toks[end]) and not stream.tight[end]:
            end += 1
            has_size = True
        family = _family(t)
        compact = "".join(toks[i:end]).lower().replace(".", "")
        caps = bool(f & (CAPS | NAME))
        digits = any(flags[j] & DIGIT for j in range(i, end))
        marked = caps or digits
        nxt = keys[end] if end < n else ""
        kind = ""
        if (family in DATASET_NAMES or compact in DATASET_NAMES) and marked:
            kind = "DATASET"
        elif family in MODEL_FAMILIES and (marked or (t[0].isupper() and family in PLAIN_MODEL_NAMES)):
            kind = "MODEL"
        elif has_size and marked:
            kind = "MODEL"
        elif marked and nxt in _DATASET_WORDS:
            kind = "DATASET"
        elif marked and nxt in _MODEL_WORDS:
            kind = "MODEL"
        key = tuple(keys[i:end])
        last_end = end
        if not kind or keys[i] in skip_keys or key in vocab_index:
            continue
        surface = _surface(stream, text, i, end)
        ent = by_surface.get(surface.casefold())
        if ent is None:
            ent = by_surface[surface.casefold()] = NamedEntity(i, end, surface, kind, family)
        ent.spans.append((i, end))
    return list(by_surface.values())
