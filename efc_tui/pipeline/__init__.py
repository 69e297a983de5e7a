"""Reading and scoring run sources, the one path every command takes.

- ``score``: one file (or one run) read and scored the way ``score`` and ``fit`` need it;
- ``pool``: the local files of ``score --jobs N`` on a pool of worker processes.

The CLI calls it in its own process and ``cluster/`` on Dask workers (``cluster.tasks``
adds only fetching URLs and spreading runs over workers). The process pool is here, not
in ``cluster/``: it is local scoring (forked processes on this machine, no Dask), and the
CLI uses it without the Dask extra. Importing this package imports neither module.
"""
