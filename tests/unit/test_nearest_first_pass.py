"""``kg.stores.nearest``: the first pass a search's nearest papers come from (``approximate``).

Why these cases: the first pass only picks candidates, so where its directions hold the
vectors (here: vectors made of a few directions, as sentence embeddings mostly are) its answer
must be the exact scan's, scores to the digit, excluded ids left out even when they are among
the candidates; it must wait for a version's third ask (building it is paid once per version),
and pages too large for its candidates, matrices below its bound of rows or no larger than the
candidates, and the calls that do not ask for it (``similar``, ``like``) must rank every row.
On vectors with no such directions (isotropic noise) it does miss rows, which shows the answers
above come from the first pass.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from extractors.embedding import quantize, to_blob
from kg.stores import nearest
from kg.stores.nearest import Matrix

ROWS = 8000
DIMS = 384


def _vectors(rng: np.random.Generator, n: int, directions: int | None) -> npt.NDArray[np.float32]:
    """``n`` vectors: mixtures of ``directions`` random directions with a little noise, or
    isotropic noise when ``directions`` is ``None``."""
    if directions is None:
        return rng.standard_normal((n, DIMS)).astype(np.float32)
    basis = rng.standard_normal((directions, DIMS))
    mixed = rng.standard_normal((n, directions)) @ basis + 0.02 * rng.standard_normal((n, DIMS))
    return mixed.astype(np.float32)


def _matrix(vectors: npt.NDArray[np.float32], first_pass_rows: int = ROWS) -> Matrix:
    return Matrix([f"p{i:05d}" for i in range(len(vectors))], quantize(vectors), first_pass_rows)


def _queries(rng: np.random.Generator, directions: int | None, n: int = 30) -> list[bytes]:
    return [to_blob(q) for q in quantize(_vectors(rng, n, directions))]


def test_the_first_pass_finds_the_exact_answer_where_its_directions_hold_the_vectors() -> None:
    rng = np.random.default_rng(3)
    matrix = _matrix(_vectors(rng, ROWS, 24))
    queries = _queries(rng, 24)
    for q in queries[: nearest.FIRST_PASS_WARM_ASKS]:  # warm: the pass is built at the third ask
        matrix.nearest(q, 20, (), approximate=True)
    assert matrix.first_pass is not None
    for q in queries:
        exact = matrix.nearest(q, 20, ())
        assert matrix.nearest(q, 20, (), approximate=True) == exact
        left_out = [exact[0][0], exact[5][0]]
        assert matrix.nearest(q, 20, left_out, approximate=True) == matrix.nearest(q, 20, left_out)
        assert not {pid for pid, _ in matrix.nearest(q, 20, left_out, approximate=True)} & set(left_out)


def test_on_isotropic_noise_the_first_pass_misses_rows_and_the_other_calls_do_not() -> None:
    rng = np.random.default_rng(5)
    matrix = _matrix(_vectors(rng, ROWS, None))
    queries = _queries(rng, None)
    before = [
        matrix.nearest(q, 20, (), approximate=True) for q in queries[: nearest.FIRST_PASS_WARM_ASKS - 1]
    ]
    assert matrix.first_pass is None  # not warm yet: these ranked every row
    assert before == [matrix.nearest(q, 20, ()) for q in queries[: nearest.FIRST_PASS_WARM_ASKS - 1]]
    rough = [matrix.nearest(q, 20, (), approximate=True) for q in queries]
    exact = [matrix.nearest(q, 20, ()) for q in queries]
    assert rough != exact  # half the variance is outside 128 of 384 directions: rows are missed
    for q, got in zip(queries, rough, strict=True):  # what it finds, it scores as the scan does
        every = dict(matrix.nearest(q, ROWS, ()))
        assert [(pid, every[pid]) for pid, _ in got] == got
    large = nearest.FIRST_PASS_CANDIDATES // 10 + 1  # a page too large for the candidates
    assert [matrix.nearest(q, large, (), approximate=True) for q in queries[:3]] == [
        matrix.nearest(q, large, ()) for q in queries[:3]
    ]


def test_a_matrix_smaller_than_its_bound_or_no_larger_than_the_candidates_ranks_every_row() -> None:
    rng = np.random.default_rng(7)
    for vectors, bound in (
        (_vectors(rng, ROWS, None), ROWS + 1),  # below the rows a first pass pays at
        (_vectors(rng, nearest.FIRST_PASS_CANDIDATES, None), 0),  # the candidates would be every row
    ):
        matrix = _matrix(vectors, bound)
        queries = _queries(rng, None, 10)
        assert [matrix.nearest(q, 20, (), approximate=True) for q in queries] == [
            matrix.nearest(q, 20, ()) for q in queries
        ]
        assert matrix.first_pass is None
