"""Tests of ``local_models.remote``."""
