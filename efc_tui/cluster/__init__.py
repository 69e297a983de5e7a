"""Scoring and fitting on Dask (issue 16): ``efc-tui score|fit PATHS --dask``.

Run sources (a log file, one per trial, or a URL) are the unit of work: each worker reads
and scores a source and returns its runs' rows (and ledgers only when asked); a file of
many runs sends its runs to other workers in batches. ``fit`` fits the gathered run table
on this machine and runs the bootstrap's resamples on the workers.

- ``tasks``: what a worker does with a source: the local pipeline (``efc_tui.pipeline``)
  plus the Dask glue (spreading a large file's runs, fetching a URL); running sources;
- ``source``: a source and what reading it gave (plain data);
- ``client``: connecting (a local cluster, or the user's scheduler), getting results back;
- ``remote``: fsspec URLs (``s3://``, ``gs://``, ``file://``): listing and fetching.

Dask and fsspec are optional (``pip install 'efc-tui[dask]'``) and imported only when a
cluster is asked for; importing this package imports neither.
"""
