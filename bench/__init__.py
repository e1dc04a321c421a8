"""Benchmarks of the referee (``python -m bench``, ``make bench``; see bench/README.md).

Everything here measures from the outside and reports ratios against a bare Flask + Redis
handler served the same way, so the figures mean the same on a fast or a slow (or busy) machine:

* :mod:`bench.http`    – whole games / hands and reads by many keep-alive clients (asyncio);
* :mod:`bench.servers` – the real Valkey and the two gunicorns (referee, :mod:`bench.bare`);
* :mod:`bench.redis_counts` – Redis round trips and commands per request (a counting proxy +
  ``INFO commandstats``), and ``MEMORY USAGE`` per game, hand and idle table;
* :mod:`bench.engines` – engine-only random playouts, Gops against OpenSpiel's goofspiel;
* :mod:`bench.profile` – where the CPU of one Gops move goes (cProfile).
"""
