"""The read side: what the API asks, composed from :class:`kg.stores.protocol.ReadStore` queries.

One job per module: :mod:`~kg.read.cache` (version-keyed bounded caches), :mod:`~kg.read.resolve`
(names to ids), :mod:`~kg.read.papers` (paper listings), :mod:`~kg.read.networks` (co-author and
concept networks), :mod:`~kg.read.trends` (trend statistics over store counts), and
:mod:`~kg.read.service`, the facade the API holds. None of them keeps a copy of the graph.
"""
