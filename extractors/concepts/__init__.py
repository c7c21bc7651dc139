"""Concept extraction: curated vocabulary + open discovery, ranked, with evidence.

Modules, in the order a paper flows through them:

* :mod:`~extractors.concepts.tokens`: one token stream (keys, offsets, word classes) for both
  modes; :mod:`~kg.core.normalize`: the tagger-free normal forms it uses.
* :mod:`~extractors.concepts.vocabulary`: ``concepts.json`` and longest-first matching.
* :mod:`~extractors.concepts.candidates`: noun-phrase chunks and their sub-phrases.
* :mod:`~extractors.concepts.discovery`: acronym definitions, introduced names, models/datasets.
* :mod:`~extractors.concepts.junk`: what is never a concept ("this paper", "results").
* :mod:`~extractors.concepts.background`: the static corpus statistics (``background_df.json``).
* :mod:`~extractors.concepts.analysis`: all of the above merged and scored, cached per Doc.
* :mod:`~extractors.concepts.extract` (``kg.concepts.v2``, ``kg.introduces.v1``, and the old
  ``kg.concepts.v1``) and :mod:`~extractors.concepts.titles` (``kg.titles.v1``): the graph parts.

Two modes, one output contract (``settings.concept_mode``, ``Pipeline(mode=...)``):

* ``fast`` (the default): the spaCy tokenizer only (``nlp.tokenizer.pipe``); word classes come
  from a lexicon of the tagger's majority tags shipped in ``background_df.json``.
* ``accurate``: ``nlp.pipe`` with the tagger and parser; classes from the tagger (except in the
  title, whose Title Case the tagger reads as proper nouns) and chunks from ``noun_chunks``.

Why fast is the default: on the evaluation files the two modes score within a few tenths of a
point of each other (F1@10 against author keywords; the parser's better boundaries are offset by
the lexicon being built from the same kind of text), while the parser costs 10-20x the time
(tens of papers/s instead of hundreds to over a thousand): ingesting a large listing with the
fast mode takes seconds rather than minutes. See ``bench/README.md`` ("Concept extraction").
"""
