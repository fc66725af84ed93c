"""Tests of ``local_models.catalog``."""
