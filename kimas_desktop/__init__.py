"""KIMAs Desktop core: types, protocols, config, errors and the pipeline logic.

This package imports no IO or model library (the layering test keeps it so); ``indexer``,
``local_models`` and ``ui`` depend on it, and ``launch.py`` wires them together.
"""

__version__ = "0.1.0"
