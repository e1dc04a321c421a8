"""gunicorn settings for the referee API (``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``).

Everything is driven by the environment, read through :mod:`service.config` (the variables, their
defaults and examples: docs/configuration.md, section "Serving"), so that the same file serves
``make run``, the test suite's live server, and a PaaS (``Procfile``).  A value that cannot be
used stops gunicorn with a message naming the variable.

HOST defaults to loopback so ``make run`` is private; the ``Procfile`` (a PaaS)
and the Dockerfile bind ``0.0.0.0:$PORT`` explicitly.

Logs: every line is one JSON object (``service.ops.logs.JsonFormatter``), gunicorn's
own lines included; the app writes one ``request`` line per request with its
request id (``X-Request-Id``), so gunicorn's access log is off unless asked for.

Metrics: ``/metrics`` sums every worker (prometheus_client multiprocess mode):
``on_starting`` points ``PROMETHEUS_MULTIPROC_DIR`` at an empty directory before
any worker imports the app, ``child_exit`` marks a dead worker's gauges.
"""

import os
import shutil
import tempfile

from service.config import load as load_settings, set_for_workers

settings = load_settings()

bind = f"{settings.host}:{settings.port}"

# gevent workers (service.ops.serving.Worker: gunicorn's gevent worker plus a body deadline and a
# per-client connection cap): an open event stream or a slow client holds a greenlet, not a
# thread, so a worker serves `worker_connections` of them (docs/operations.md, "Serving");
# per move and per read gthread measured no faster (`python -m bench.workers`,
# bench/README.md "Worker class"). GUNICORN_WORKER_CLASS=gthread brings back threads (then
# GUNICORN_THREADS counts).
worker_class = settings.worker_class
workers = settings.web_concurrency
threads = settings.threads
worker_connections = settings.worker_connections  # open connections per worker

timeout = settings.timeout  # a worker that stops answering its heartbeat is restarted
graceful_timeout = settings.graceful_timeout
# Each worker listens on a socket of its own (SO_REUSEPORT): the kernel spreads connections over
# the workers, where a shared socket lets one worker take a whole burst (service.ops.serving.
# settle_reuse_port, which also turns it off for Unix sockets, systemd's sockets and port 0;
# service.ops.serving.keep_listening_plan keeps that on a reload).
reuse_port = settings.reuse_port
# gevent: a request's headers must arrive within this many seconds, and an idle keep-alive
# connection is closed after it (bodies: REFEREE_BODY_TIMEOUT, service/ops/serving.py).
keepalive = settings.keepalive

# Bounded request sizes (the API only takes small JSON bodies).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

forwarded_allow_ips = settings.forwarded_allow_ips

# gunicorn >= 25.1 opens a control socket at a fixed per-user path by default;
# several servers on one machine (tests, make run) would fight over it.
control_socket_disable = True

loglevel = settings.loglevel
errorlog = "-"
accesslog = settings.gunicorn_accesslog
# gunicorn's access line is built only when asked for (service.ops.serving.Logger): with the
# logconfig_dict below gunicorn would build it for every request, to be dropped.
logger_class = "service.ops.serving.Logger"
# Never log credentials: no request headers at all (so no Authorization /
# X-Api-Key), and no %(u)s, which gunicorn decodes from a Basic Authorization
# header. %(U)s is the path only (no query string).
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'

proc_name = "referee"

# Every log line is JSON (gunicorn's, the app's): one root handler on stderr.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "service.ops.logs.JsonFormatter"}},
    "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
    "root": {"level": "INFO", "handlers": ["json"]},
    "loggers": {
        "gunicorn.error": {"level": loglevel.upper(), "handlers": [], "propagate": True, "qualname": "gunicorn.error"},
        # With a logconfig_dict gunicorn logs access whatever accesslog says: silence it unless asked for.
        "gunicorn.access": {"level": "INFO" if accesslog else "CRITICAL", "handlers": [], "propagate": True,
                            "qualname": "gunicorn.access"},
    },
}


def on_reload(server):
    """SIGHUP: the new workers listen as the first ones did (service.ops.serving.keep_listening_plan)."""
    from service.ops.serving import keep_listening_plan

    keep_listening_plan(server)


def post_fork(server, worker):
    """In each new worker, before its app is loaded: how many requests it serves at once, from which
    the app sizes its Redis pool and its share of streams (service.ops.serving.worker_concurrency)."""
    from service.ops.serving import worker_concurrency

    set_for_workers("REFEREE_WORKER_CONCURRENCY", str(worker_concurrency(worker)))


def on_starting(server):
    """Before any worker: the listening plan (service.ops.serving.settle_reuse_port), and an empty
    metrics directory shared by this server's workers only."""
    from service.ops.serving import settle_reuse_port

    settle_reuse_port(server)
    path = settings.metrics_dir
    if path:
        os.makedirs(path, exist_ok=True)
        for name in os.listdir(path):  # a previous run's values are not this run's
            if name.endswith(".db"):
                os.unlink(os.path.join(path, name))
    else:
        path = tempfile.mkdtemp(prefix="referee-metrics-")
        server.referee_metrics_tmp = path
    server.referee_metrics_dir = path
    set_for_workers("PROMETHEUS_MULTIPROC_DIR", path)  # the workers' prometheus-client reads it


def child_exit(server, worker):
    path = getattr(server, "referee_metrics_dir", None)
    if path:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, path)


def on_exit(server):
    path = getattr(server, "referee_metrics_tmp", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)
