"""Tests of ``local_models.reader``."""
