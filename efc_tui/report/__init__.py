"""The output layer: what a scored run becomes for people and other programs.

- ``export``: the annotated ledger document (``efc-ledger/1``);
- ``output``: where results go and what they are called (one policy for the CLI and app);
- ``parquet``: Parquet rows of the same figures;
- ``cireport``: JUnit XML and GitHub annotations of ``score``'s thresholds;
- ``display``: how outcomes and long names read in every table and screen;
- ``compare``: the step-aligned comparison of two scored runs (``diff``);
- ``text``: untrusted log text made safe to show.

It reads scored runs (scoring, adapter, fitting) and is read by the CLI and the app; it
imports neither, nor textual (``[tool.importlinter]`` in pyproject.toml checks it).
Importing this package imports none of its modules.
"""
