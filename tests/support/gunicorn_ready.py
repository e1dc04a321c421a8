"""The tests' gunicorn config: deploy/gunicorn.conf.py exactly, and each worker, once its app is
loaded and its socket listening, says so on the systemd notification socket the test made
(``NOTIFY_SOCKET``; gunicorn's master sends ``READY=1`` there by itself). ``start_gunicorn``
(tests/support/servers.py) waits for those messages instead of polling the port.

Run as ``gunicorn -c tests/support/gunicorn_ready.py service.wsgi:app``: gunicorn executes this file
as its config, so the deploy file's names (settings and hooks) become this file's.
"""

import os

_DEPLOY_CONF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "gunicorn.conf.py")

with open(_DEPLOY_CONF) as _file:
    exec(compile(_file.read(), _DEPLOY_CONF, "exec"))


def post_worker_init(worker):
    from gunicorn import systemd

    systemd.sd_notify(f"WORKER_READY={os.getpid()}", worker.log)
