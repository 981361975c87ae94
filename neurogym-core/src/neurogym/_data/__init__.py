"""Data and vector internals: Dataset streams, looped batches, the looped vector env."""
