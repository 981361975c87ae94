"""The task classes of neurogym-workingmemory (one module per task family)."""
