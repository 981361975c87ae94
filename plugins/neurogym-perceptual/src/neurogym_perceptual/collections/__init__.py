"""Task collections of neurogym-perceptual: tasks built from other tasks and wrappers."""
