"""The bare handler the referee is measured against (``gunicorn ... bench.bare:app``).

Served by the same gunicorn config and worker class as the referee. It does the least a
move handler could: ``POST /bare/<id>/move`` parses a small JSON body and runs one redis-py
pipeline of 3 commands (HINCRBY, RPUSH, EXPIRE: one round trip); ``GET /bare/blob/<name>``
returns a blob stored in Redis (the bench stores there a real response of the referee, so the
bare read sends as many bytes as the read it is compared with).
"""

from __future__ import annotations

import json
import os

import redis
from flask import Flask, Response, abort, request

BLOB_PREFIX = "bench:blob:"
KEY_PREFIX = "bench:bare:"


def blob_key(name: str) -> str:
    return BLOB_PREFIX + name


def create_app(redis_url: str | None = None) -> Flask:
    app = Flask(__name__)
    client = redis.Redis.from_url(redis_url or os.environ["REDIS_URL"], socket_timeout=1.0)

    @app.get("/healthz")
    def healthz():
        return {"ok": True}

    @app.post("/bare/<id>/move")
    def move(id: str):
        body = request.get_json()
        if not isinstance(body, dict):
            abort(400)
        key = KEY_PREFIX + id
        pipe = client.pipeline(transaction=False)
        pipe.hincrby(key, "version", 1)
        pipe.rpush(key + ":log", json.dumps(body, separators=(",", ":")))
        pipe.expire(key, 3600)
        version, _, _ = pipe.execute()
        return {"id": id, "version": version}

    @app.get("/bare/blob/<name>")
    def blob(name: str):
        data = client.get(blob_key(name))
        if data is None:
            abort(404)
        return Response(data, mimetype="application/json")

    return app


# gunicorn imports this module in each worker: the app is built there, from $REDIS_URL.
app = create_app() if os.environ.get("REDIS_URL") else None
