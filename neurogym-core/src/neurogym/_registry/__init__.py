"""Registry and plugins: task specs, the registry, plugin discovery, gymnasium registration."""
