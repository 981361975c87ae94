"""The task classes of neurogym-valuebased (one module per task family)."""
