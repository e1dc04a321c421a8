"""WSGI entry point: ``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``."""

from service.games.gops import values
from service.web.app import create_app

app = create_app()

# The Gops bots' and hints' values are mapped and indexed here, at the worker's start, so no
# request pays for it (about 0.1 s; the table's pages are shared by every worker on the machine).
values.table()
values.estimates()
