"""Sussillo & Barak (2013): fixed and slow points of a recurrent network's map.

Sussillo & Barak (2013), "Opening the black box: low-dimensional dynamics in high-dimensional
recurrent neural networks", Neural Computation 25:626-649. For the discrete-time map
``h' = F(h, x)`` under a constant input ``x``, the speed ``q(h) = 1/2 ||F(h, x) - h||^2`` is
minimised from many states the network visits; minima with ``q`` near 0 are fixed points, with
small ``q`` slow points. The Jacobian ``dF/dh`` there gives the local dynamics: a fixed point of
a map is stable when every eigenvalue has modulus below 1.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from neurogym import validate
from neurogym_apps.analysis._deps import require
from neurogym_apps.train import RecurrentNetwork

__all__ = ["METHODS", "FixedPoints", "Step", "find_fixed_points", "transition"]

#: ``step(h (K, S), x (K, n_in)) -> h' (K, S)``: one step of a network's map, batched.
Step = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
#: The optimisers :func:`find_fixed_points` offers (torch.optim.Adam, torch.optim.LBFGS).
METHODS = ("adam", "lbfgs")


def transition(network: RecurrentNetwork) -> Step:
    """The map ``h -> h'`` of a network's recurrent layer under an input (one step).

    For a GRU or RNN the state is the hidden vector ``(K, N)``; for an LSTM it is ``h``
    and ``c`` side by side, ``(K, 2N)``.
    """
    layer = network.recurrent
    units = layer.hidden_size

    def step(state: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        x = inputs[:, None, :]
        if network.cell == "lstm":
            h, c = state[:, :units], state[:, units:]
            _, (h_new, c_new) = layer(x, (h[None].contiguous(), c[None].contiguous()))
            return torch.cat([h_new[0], c_new[0]], dim=-1)
        _, h_new = layer(x, state[None].contiguous())
        out: torch.Tensor = h_new[0]
        return out

    return step


@dataclasses.dataclass(frozen=True, repr=False)
class FixedPoints:
    """Fixed (or slow) points of a map under one constant input, one row each.

    Attributes:
        points: ``(M, S)`` states, by increasing speed.
        speeds: ``(M,)`` ``q = 1/2 ||F(h, x) - h||^2`` at each point.
        eigenvalues: ``(M, S)`` complex eigenvalues of the Jacobian ``dF/dh`` there, by
            decreasing modulus.
        eigenvectors: ``(M, S, S)`` complex: ``eigenvectors[m][:, i]`` goes with
            ``eigenvalues[m, i]``.
        inputs: ``(n_in,)`` the constant input.
        tolerance: Eigenvalue moduli within this of 1 count as neutral (neither stable nor
            unstable): a GRU whose update gate saturates keeps some units exactly constant,
            eigenvalue 1 to float precision.
        slowest: The lowest ``q`` any start reached, kept or not (NaN without starts): when
            no point is found, how far the search got (an LSTM whose forget gates saturate
            has slow manifolds along which ``q`` keeps falling as ``c`` grows).
    """

    points: np.ndarray
    speeds: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    inputs: np.ndarray
    tolerance: float = 1e-3
    slowest: float = float("nan")

    def __repr__(self) -> str:
        """One line: how many, how many stable, the slowest speed reached."""
        return (
            f"FixedPoints(found={len(self.points)}, stable={int(self.stable.sum())}, "
            f"slowest={self.slowest:.1e})"
        )

    def __len__(self) -> int:
        """The number of points."""
        return int(self.points.shape[0])

    @property
    def stable(self) -> np.ndarray:
        """``(M,)`` bool: no eigenvalue modulus above ``1 + tolerance`` (an attractor)."""
        return np.asarray(self.unstable_dims == 0)

    @property
    def unstable_dims(self) -> np.ndarray:
        """``(M,)`` int: eigenvalues of modulus above ``1 + tolerance`` (1: a saddle)."""
        return np.asarray((np.abs(self.eigenvalues) > 1.0 + self.tolerance).sum(1), dtype=int)


def _minimise(
    step: Step, start: torch.Tensor, x: torch.Tensor, method: str, iterations: int, lr: float
) -> torch.Tensor:
    """Minimises ``q`` from every row of ``start`` (the rows do not interact)."""
    states = start.clone().requires_grad_(True)

    def total() -> torch.Tensor:
        q: torch.Tensor = 0.5 * ((step(states, x) - states) ** 2).sum()
        return q

    if method == "adam":
        optimizer: torch.optim.Optimizer = torch.optim.Adam([states], lr=lr)
        for _ in range(iterations):
            optimizer.zero_grad()
            total().backward()  # type: ignore[no-untyped-call]
            optimizer.step()
    else:
        lbfgs = torch.optim.LBFGS(  # no early stop: the sum over starts hides slow rows
            [states],
            lr=lr,
            max_iter=iterations,
            tolerance_grad=0.0,
            tolerance_change=0.0,
            line_search_fn="strong_wolfe",
        )

        def closure() -> torch.Tensor:
            lbfgs.zero_grad()
            q = total()
            q.backward()  # type: ignore[no-untyped-call]
            return q

        lbfgs.step(closure)  # type: ignore[no-untyped-call]
    return states.detach()


def _speeds(step: Step, states: torch.Tensor, x: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        return np.asarray((0.5 * ((step(states, x) - states) ** 2).sum(1)).numpy(), dtype=float)


def _unique(points: np.ndarray, speeds: np.ndarray, distance: float) -> np.ndarray:
    """Indices of one point (the slowest) per group of points closer than ``distance``."""
    if len(points) < 2:
        return np.arange(len(points))
    cluster = require("sklearn.cluster")
    groups = cluster.AgglomerativeClustering(
        n_clusters=None, distance_threshold=distance, linkage="single"
    ).fit_predict(points)
    keep = [np.flatnonzero(groups == g)[np.argmin(speeds[groups == g])] for g in np.unique(groups)]
    return np.asarray(sorted(keep, key=lambda i: speeds[i]), dtype=int)


def _jacobians(step: Step, points: torch.Tensor, x: torch.Tensor) -> np.ndarray:
    """``(M, S, S)``: ``dF/dh`` at each point."""
    rows = []
    for point in points:

        def single(h: torch.Tensor) -> torch.Tensor:
            return step(h[None], x[:1])[0]

        rows.append(torch.autograd.functional.jacobian(single, point).numpy())  # type: ignore[no-untyped-call]
    return np.asarray(rows, dtype=float).reshape(len(rows), points.shape[1], points.shape[1])


def find_fixed_points(
    step: Step | RecurrentNetwork,
    initial: Any,
    inputs: Any,
    *,
    method: str = "lbfgs",
    iterations: int = 500,
    lr: float | None = None,
    noise: float = 0.0,
    max_speed: float = 1e-6,
    unique_distance: float = 1e-3,
    tolerance: float = 1e-3,
    bound: float | None = None,
    seed: int = 0,
) -> FixedPoints:
    """Minimises ``q(h) = 1/2 ||F(h, x) - h||^2`` from each initial state; keeps the slow ones.

    Args:
        step: The map (see :data:`Step`; it is called with float64 tensors), or a network
            (its :func:`transition`, on a float64 copy).
        initial: ``(K, S)`` states to start from, e.g. states the network visited
            (``activity.hidden[activity.valid]``).
        inputs: ``(n_in,)`` the constant input ``x``.
        method: ``"lbfgs"`` (at most ``iterations`` iterations, ``lr`` default 1, strong
            Wolfe line search; reaches ``q`` of 1e-9 in a few hundred iterations) or
            ``"adam"`` (``iterations`` steps of rate ``lr``, default 0.01; slower to
            converge: thousands of steps).
        iterations: Optimiser steps.
        lr: Learning rate (None: the method's default).
        noise: Standard deviation of Gaussian noise added to the initial states (spreads
            starts that sit on one trajectory).
        max_speed: Points with ``q`` above this are dropped (1e-6: fixed points; larger
            values keep slow points too).
        unique_distance: Points closer than this (Euclidean) are one point.
        tolerance: Eigenvalue moduli within this of 1 are neutral (see :class:`FixedPoints`).
        bound: Points with a coordinate beyond ``+-bound`` are dropped. For a GRU or tanh RNN
            give 1: their states never leave ``(-1, 1)``, while the search can run far out,
            where saturated gates make every state a fixed point no trial reaches.
        seed: Seed of the noise.

    Returns:
        The :class:`FixedPoints`, slowest first (none if no start reached ``max_speed``).

    Raises:
        ValueError: A bad ``method`` or option, or shapes that do not fit.
    """
    validate.choice(method, "method", METHODS)
    validate.positive_int(iterations, "iterations")
    validate.number(noise, "noise", minimum=0)
    validate.number(max_speed, "max_speed", minimum=0, exclusive_minimum=True)
    validate.number(unique_distance, "unique_distance", minimum=0, exclusive_minimum=True)
    validate.number(tolerance, "tolerance", minimum=0)
    if bound is not None:
        validate.number(bound, "bound", minimum=0, exclusive_minimum=True)
    rate = {"adam": 1e-2, "lbfgs": 1.0}[method] if lr is None else lr
    validate.number(rate, "lr", minimum=0, exclusive_minimum=True)
    # float64 throughout: q sums over starts, and in float32 the slow starts' q is lost
    # beside the fast ones' (the search stalls near 1e-4); a network is searched as a copy
    fn = transition(copy.deepcopy(step).double()) if isinstance(step, RecurrentNetwork) else step
    start = torch.as_tensor(np.asarray(initial, dtype=np.float64))
    if start.ndim != 2:
        raise ValueError(f"initial must be (K, S) states, got shape {tuple(start.shape)}")
    if noise:
        generator = torch.Generator().manual_seed(seed)
        start = start + noise * torch.randn(start.shape, generator=generator, dtype=torch.float64)
    x_row = torch.as_tensor(np.asarray(inputs, dtype=np.float64)).reshape(1, -1)
    x = x_row.expand(start.shape[0], -1)
    found = _minimise(fn, start, x, method, iterations, rate)
    speeds = _speeds(fn, found, x)
    slowest = float(speeds.min()) if len(speeds) else float("nan")
    inside = np.ones(len(speeds), bool) if bound is None else found.abs().amax(1).numpy() <= bound
    slow = np.flatnonzero((speeds <= max_speed) & inside)
    points, speeds = found.numpy()[slow], speeds[slow]
    keep = _unique(points, speeds, unique_distance)
    points, speeds = points[keep], speeds[keep]
    jacobians = _jacobians(fn, torch.as_tensor(points), x_row)
    values, vectors = np.linalg.eig(jacobians) if len(points) else (np.zeros((0, 0)),) * 2
    order = np.argsort(-np.abs(values), axis=-1)
    values = np.take_along_axis(values, order, -1)
    vectors = np.take_along_axis(vectors, order[:, None, :], -1) if len(points) else vectors
    size = start.shape[1]
    return FixedPoints(
        points=points.reshape(-1, size),
        speeds=speeds,
        eigenvalues=np.asarray(values, dtype=complex).reshape(-1, size),
        eigenvectors=np.asarray(vectors, dtype=complex).reshape(-1, size, size),
        inputs=x_row[0].numpy(),
        tolerance=tolerance,
        slowest=slowest,
    )
