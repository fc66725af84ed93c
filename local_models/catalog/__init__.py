"""The recommended models and how they get onto this machine: the catalog (``catalog.toml`` read by
``catalog``), installing a catalog entry (``install``), trustworthy downloads (``download``) and what the
Hugging Face hub side needs without loading a model (``hub``).
"""
