"""Tests of ``local_models.llama``."""
