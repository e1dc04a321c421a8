"""WSGI entry point: ``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``."""

from service.web.app import create_app

app = create_app()
