"""gunicorn settings for the referee API (``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``).

Everything is driven by the environment so that the same file serves
``make run``, the test suite's live server, and a PaaS (``Procfile``):

=====================  =========================  ===========
variable               meaning                    default
=====================  =========================  ===========
PORT / HOST            bind address               8000 / 127.0.0.1
WEB_CONCURRENCY        worker processes           2
GUNICORN_THREADS       threads per worker         4
GUNICORN_TIMEOUT       worker timeout (s)         30
GUNICORN_LOGLEVEL      error-log level            info
GUNICORN_ACCESSLOG     access log target ("-" stdout, "" off)   -
FORWARDED_ALLOW_IPS    proxies trusted for X-Forwarded-*         127.0.0.1,::1
=====================  =========================  ===========
"""

import os


def _int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        return default


bind = f"{os.environ.get('HOST') or '127.0.0.1'}:{_int('PORT', 8000)}"

worker_class = "gthread"
workers = _int("WEB_CONCURRENCY", 2)
threads = _int("GUNICORN_THREADS", 4)

timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
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
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None
# Never log credentials: no request headers at all (so no Authorization /
# X-Api-Key), and no %(u)s, which gunicorn decodes from a Basic Authorization
# header. %(U)s is the path only (no query string).
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'

proc_name = "referee"
