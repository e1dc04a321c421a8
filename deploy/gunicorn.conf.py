"""gunicorn settings for the referee API (``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``).

Everything is driven by the environment so that the same file serves
``make run``, the test suite's live server, and a PaaS (``Procfile``):

=====================  =========================  ===========
variable               meaning                    default
=====================  =========================  ===========
PORT / HOST            bind address               8000 / 127.0.0.1
WEB_CONCURRENCY        worker processes           2
GUNICORN_WORKER_CLASS  gunicorn worker class      service.ops.serving.Worker (gevent)
GUNICORN_WORKER_CONNECTIONS  connections per worker  1000
GUNICORN_THREADS       threads per worker (gthread only)  4
GUNICORN_TIMEOUT       worker timeout (s)         30
GUNICORN_REUSE_PORT    a socket per worker (0: one shared)  1
GUNICORN_LOGLEVEL      error-log level            info
GUNICORN_ACCESSLOG     gunicorn's own access log ("-" stdout)    off (the app logs each request)
FORWARDED_ALLOW_IPS    proxies trusted for X-Forwarded-*         127.0.0.1,::1
PROMETHEUS_MULTIPROC_DIR  workers' metric files (emptied at start)  a fresh temp dir
=====================  =========================  ===========

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


def _int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        return default


bind = f"{os.environ.get('HOST') or '127.0.0.1'}:{_int('PORT', 8000)}"

# gevent workers (service.ops.serving.Worker: gunicorn's gevent worker plus a body deadline and a
# per-client connection cap): an open event stream or a slow client holds a greenlet, not a
# thread, so a worker serves `worker_connections` of them (docs/operations.md, "Serving");
# per move and per read gthread measured no faster (`python -m bench.workers`,
# bench/README.md "Worker class"). GUNICORN_WORKER_CLASS=gthread brings back threads (then
# GUNICORN_THREADS counts).
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or "service.ops.serving.Worker"
workers = _int("WEB_CONCURRENCY", 2)
threads = _int("GUNICORN_THREADS", 4)
worker_connections = _int("GUNICORN_WORKER_CONNECTIONS", 1000)  # open connections per worker

timeout = _int("GUNICORN_TIMEOUT", 30)  # a worker that stops answering its heartbeat is restarted
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
# Each worker listens on a socket of its own (SO_REUSEPORT): the kernel spreads connections over
# the workers, where a shared socket lets one worker take a whole burst (service.ops.serving.
# settle_reuse_port, which also turns it off for Unix sockets, systemd's sockets and port 0;
# service.ops.serving.keep_listening_plan keeps that on a reload).
reuse_port = os.environ.get("GUNICORN_REUSE_PORT", "1") != "0"
# gevent: a request's headers must arrive within this many seconds, and an idle keep-alive
# connection is closed after it (bodies: REFEREE_BODY_TIMEOUT, service/ops/serving.py).
keepalive = _int("GUNICORN_KEEPALIVE", 5)

# Bounded request sizes (the API only takes small JSON bodies).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# gunicorn >= 25.1 opens a control socket at a fixed per-user path by default;
# several servers on one machine (tests, make run) would fight over it.
control_socket_disable = True

loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
errorlog = "-"
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "") or None
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

    os.environ["REFEREE_WORKER_CONCURRENCY"] = str(worker_concurrency(worker))


def on_starting(server):
    """Before any worker: the listening plan (service.ops.serving.settle_reuse_port), and an empty
    metrics directory shared by this server's workers only."""
    from service.ops.serving import settle_reuse_port

    settle_reuse_port(server)
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        os.makedirs(path, exist_ok=True)
        for name in os.listdir(path):  # a previous run's values are not this run's
            if name.endswith(".db"):
                os.unlink(os.path.join(path, name))
    else:
        path = tempfile.mkdtemp(prefix="referee-metrics-")
        server.referee_metrics_tmp = path
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    path = getattr(server, "referee_metrics_tmp", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)
