"""Task classes of neurogym-perceptual (one module per task family)."""
