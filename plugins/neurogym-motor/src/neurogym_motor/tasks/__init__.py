"""The task classes of neurogym-motor (one module per task family)."""
