"""Task classes of this plugin: one module per task (or per family of tasks)."""
