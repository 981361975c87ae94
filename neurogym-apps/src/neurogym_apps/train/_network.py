"""The recurrent network the trainer fits: an RNN core and a linear readout."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

__all__ = ["CELLS", "RecurrentNetwork"]

CELLS = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}
"""The recurrent cores by name (``rnn`` is an Elman network with tanh units)."""


class RecurrentNetwork(nn.Module):
    """``inputs (B, T, n_in) -> outputs (B, T, n_out)`` through one recurrent layer.

    Args:
        n_in: Observation size.
        n_out: Action logits (Discrete actions) or action values (Box actions).
        hidden_size: Units of the recurrent layer.
        cell: ``"gru"``, ``"lstm"`` or ``"rnn"``.
    """

    def __init__(self, n_in: int, n_out: int, hidden_size: int, cell: str) -> None:
        super().__init__()
        self.cell = cell
        self.recurrent = CELLS[cell](n_in, hidden_size, batch_first=True)
        self.readout = nn.Linear(hidden_size, n_out)

    def forward(self, inputs: torch.Tensor, state: Any = None) -> tuple[torch.Tensor, Any]:
        """Runs the network over ``inputs``; returns the outputs and the final state."""
        hidden, state = self.recurrent(inputs, state)
        out: torch.Tensor = self.readout(hidden)
        return out, state
