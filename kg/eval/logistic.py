"""Standardised L2 logistic regression by Newton's method, for the shipped small models.

Why one: the concept re-ranker (``scripts/train_ranker.py``) and the learned ``about`` decision
(``scripts/train_about_model.py``) both fit a handful of features this way and ship the result as
JSON run in plain Python; the two trainers differ only in their penalty and stopping rule. No
random draw: the same table gives the same bytes.

>>> import numpy as np
>>> x = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0.0, 0.0, 1.0, 1.0])
>>> mean, scale, weights, bias = fit_logistic(x, y, l2=1.0, iterations=25, tolerance=1e-6)
>>> float(mean[0]), bool(weights[0] > 0)
(1.5, True)
"""

from __future__ import annotations

import numpy as np


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, l2: float, iterations: int, tolerance: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(mean, scale, weights, bias)`` of the columns standardised by ``mean`` and ``scale``;
    the bias is not penalised; stops after ``iterations`` Newton steps or a step below
    ``tolerance``."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - y) + reg * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < tolerance:
            break
    return mean, scale, w[:-1], float(w[-1])
