"""Tests of ``local_models.embedders``."""
