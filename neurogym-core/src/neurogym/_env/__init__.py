"""The single env: TrialEnv, its current trial, prefetching, the authoring verbs, actions."""
