"""Preset config files: full, routed, turbo (the KIMAs paper's three applications)."""
