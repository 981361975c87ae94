"""Trial generation: the batch builder, TrialBatch, trial variables, per-row generators."""
