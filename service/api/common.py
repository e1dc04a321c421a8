"""Pieces every API blueprint shares: the store, bearer tokens, seat checks, ETags."""

from __future__ import annotations

import time
from copy import deepcopy
from typing import Any, Callable, Hashable

import flask_smorest
from flask import Response, current_app, make_response, request
from flask_smorest.utils import resolve_schema_instance
from marshmallow import missing
from webargs.flaskparser import FlaskParser

from service.api import auth
from service.errors import Forbidden, RefereeError, StaleVersion, Unauthorized
from service.storage.store import Change, Record, Store

# Error statuses each kind of operation documents (names of flask-smorest's registered responses).
ERRORS = {
    "create": (400, 413, 415, 422, 429, 503),
    "read": (304, 404, 429, 503),
    "seat_read": (304, 401, 403, 404, 429, 503),
    "act": (400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
}
RESPONSE_NAMES = {
    304: "NOT_MODIFIED",
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    429: "TOO_MANY_REQUESTS",
    503: "SERVICE_UNAVAILABLE",
}


#: Where ``service.web.app``'s ``_json_only`` leaves a request's JSON body once it has parsed it.
PARSED_BODY = "referee.parsed_body"


class _Parser(FlaskParser):
    """webargs' Flask parser, taking the body ``_json_only`` already parsed (as webargs parses it:
    the UTF-8 text with the json module) instead of parsing it a second time."""

    def _raw_load_json(self, req):
        parsed = req.environ.get(PARSED_BODY, missing)
        if parsed is missing:
            return super()._raw_load_json(req)
        return parsed


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, minus two per-request costs that only repeat work.

    * ``arguments`` hands webargs the schema *instance*: given a class, webargs builds a new
      ``Schema`` on every request (~6 % of a move's CPU); the spec is the same either way.
    * its parser reads the JSON body ``_json_only`` parsed (:data:`PARSED_BODY`): one parse a move.
    """

    ARGUMENTS_PARSER = _Parser()

    def arguments(self, schema, *args, **kwargs):
        return super().arguments(resolve_schema_instance(schema), *args, **kwargs)


def error_responses(blp, kind: str) -> Callable:
    """Document the problem+json responses an operation of ``kind`` can give.

    The same ``_apidoc`` entries as one ``blp.alt_response(status, response=NAME)`` per status,
    written on the function itself: each ``alt_response`` would also wrap the view in a function
    that does nothing at run time but one more ``current_app.ensure_sync`` (ten layers a move).
    """

    def decorate(func: Callable) -> Callable:
        doc = deepcopy(getattr(func, "_apidoc", {}))
        responses = doc.setdefault("response", {}).setdefault("responses", {})
        for status in ERRORS[kind]:
            responses.setdefault(status, []).append(RESPONSE_NAMES[status])
        func._apidoc = doc  # type: ignore[attr-defined]
        return func

    return decorate


IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    # No example: a published key is one every client copies (and a fuzzer reuses with other bodies).
    "schema": {"type": "string", "minLength": 16, "maxLength": 255, "pattern": "^[!-~][ -~]{14,253}[!-~]$"},
    "description": "Makes the request safe to retry: the same key with the same body returns the "
    "first response (for a create: the same id and tokens; header Idempotent-Replayed: true) for 24 "
    "hours, even when the first attempt's answer was lost to a fault; with another body it is refused "
    "(idempotency_key_reused). 16 to 255 printable ASCII characters, not guessable: a fresh random "
    "UUID per request (a shorter key: invalid_idempotency_key).",
}


def client_scope(name: str) -> str:
    """An idempotency scope private to the calling client (its address, as the rate limiter sees it):
    a create's replay holds the game's tokens, so another client reusing the same key must not get it."""
    from service.api.ratelimit import client_id

    return f"{name}:{client_id(request.remote_addr)}"


def store() -> Store:
    return current_app.extensions["referee_store"]


def now() -> float:
    return round(time.time(), 3)


def bearer_hash() -> str | None:
    """SHA-256 of the bearer token in the Authorization header, if any.

    Tokens are accepted only there (never in a query string or body), so they
    do not end up in access logs or browser history.
    """
    header = request.environ.get("HTTP_AUTHORIZATION", "")  # the header, as the server passed it
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    token = token.strip()
    if len(token) > 256 or not token.isascii():
        return None
    return auth.token_hash(token)


def new_tokens(seats: int) -> tuple[str, list[str], dict[str, Any]]:
    """Fresh host and seat tokens, and the hashes to store."""
    host = auth.new_token()
    seat_tokens = [auth.new_token() for _ in range(seats)]
    hashes = {"host": auth.token_hash(host), "seats": [auth.token_hash(t) for t in seat_tokens]}
    return host, seat_tokens, hashes


def identify(doc_auth: dict[str, Any], presented: str | None) -> str:
    """Who the presented token belongs to in this game: ``host`` or ``seat:N``.

    Raises Unauthorized when there is no token or it is not one of this game's.
    Every stored hash is compared (constant time each), so timing does not say
    which seat a token was close to.
    """
    if presented is None:
        raise Unauthorized("this operation needs an Authorization: Bearer <token> header", code="missing_token")
    who = None
    if auth.same_hash(presented, doc_auth["host"]):
        who = "host"
    for seat, stored in enumerate(doc_auth["seats"]):
        if auth.same_hash(presented, stored):
            who = f"seat:{seat}"
    if who is None:
        raise Unauthorized("the bearer token is not valid for this game", code="invalid_token")
    return who


def require_seat(who: str, seat: int) -> None:
    if who != f"seat:{seat}":
        raise Forbidden(
            f"this token belongs to {who.replace(':', ' ')}, not seat {seat}",
            code="not_your_seat",
        )


def etag_for(version: int, tag: str = "") -> str:
    return f'"v{version}{tag}"'


def not_modified(version: int, tag: str = "") -> bool:
    """True when the client's If-None-Match already names this version (poll without a body)."""
    return etag_for(version, tag) in request.headers.get("If-None-Match", "")


# ------------------------------------------------------------ view serialization
#
# A view's marshmallow schema documents it: the spec is generated from it.  Each game's observer
# builds its views in exactly the schema's shape (the declared fields, each value of its field's
# type), so a view is sent as the observer built it, not dumped again (a dump was 9 % of a
# move's instructions): :func:`dumped`.  That the shape is exact is checked, not
# assumed: with ``CHECK_VIEWS`` (on in every app the tests make, ``TESTING``, and in every
# gunicorn they start, ``REFEREE_CHECK_VIEWS=1``) every view sent is compared, as JSON bytes,
# with the schema's dump of it, and a difference is a :class:`ViewDrift` (a 500).
#
# The dump it is compared with is :func:`compiled`: marshmallow's dump from the same schema as
# one generated function per schema (a line per field, no call per scalar value), taking values
# that already have the field's type as they are and handing any other value to the field itself
# (its own ``_serialize``), so the result is marshmallow's.  A schema using anything else (hooks,
# data_key, only/exclude, dump defaults, other field types) is dumped by marshmallow itself.
# tests/test_round_trips.py holds both to marshmallow's own dump on every view of real played
# games of both kinds.


class _Fallback(Exception):
    """This object needs marshmallow's own dump (not a dict, or a field name it resolves oddly)."""


_DICT_ATTRIBUTES = frozenset(dir(dict))
_COMPILED: dict[tuple, Callable[[Any], Any]] = {}


class _Plan:
    """The source of one generated dump function and the objects its code names."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"_Fallback": _Fallback, "_scalars": _scalars}
        self.depth = 0

    def bind(self, value: Any) -> str:
        name = f"_b{len(self.names)}"
        self.names[name] = value
        return name

    def temp(self) -> str:
        self.depth += 1
        return f"_v{self.depth}"


def _scalars(value, exact, inner):
    """A list of scalars already of the field's type (hands, bids, pots: the usual case) is
    passed on as it is, checked in one pass, not copied item by item."""
    for each in value:
        if type(each) is not exact and each is not None:
            return [inner(item) for item in value]
    return value


def _value_code(field, var: str, plan: _Plan) -> str | None:
    """A Python expression serializing the (present) value named ``var`` as ``field`` would,
    or None when not supported.  ``var`` is a plain name: it may appear several times."""
    from marshmallow import fields as f

    if getattr(field, "as_string", False):
        return None

    exact = _exact_type(field)
    if exact is not None:
        own = plan.bind(field._serialize)
        return f"({var} if {var} is None or type({var}) is {exact.__name__} else {own}({var}, None, None))"
    if _serializes_as(field, f.Raw):
        return var
    if _serializes_as(field, f.List):
        inner_exact = _exact_type(field.inner)
        if inner_exact is not None:
            inner = plan.bind(lambda value, own=field.inner._serialize, exact=inner_exact:
                              value if value is None or type(value) is exact else own(value, None, None))
            return f"(None if {var} is None else _scalars({var}, {inner_exact.__name__}, {inner}))"
        each = plan.temp()
        inner_code = _value_code(field.inner, each, plan)
        if inner_code is None:
            return None
        return f"(None if {var} is None else [{inner_code} for {each} in {var}])"
    if _serializes_as(field, f.Dict):
        key, value = plan.temp(), plan.temp()
        key_code = _value_code(field.key_field, key, plan) if field.key_field is not None else key
        value_code = _value_code(field.value_field, value, plan) if field.value_field is not None else value
        if key_code is None or value_code is None:
            return None
        return f"(None if {var} is None else {{{key_code}: {value_code} for {key}, {value} in {var}.items()}})"
    if _serializes_as(field, f.Nested):
        if field.only is not None or field.exclude:
            return None
        schema = field.schema
        dump = _schema_function(schema)
        if dump is None:
            return None
        name = plan.bind(dump)
        if schema.many or field.many:
            each = plan.temp()
            return f"(None if {var} is None else [{name}({each}) for {each} in {var}])"
        return f"(None if {var} is None else {name}({var}))"
    return None


def _exact_type(field) -> type | None:
    """bool/int/float/str for a field serializing as marshmallow's Boolean/Integer/Float/String."""
    from marshmallow import fields as f

    if getattr(field, "as_string", False):
        return None
    for base, exact in ((f.Boolean, bool), (f.Integer, int), (f.Float, float), (f.String, str)):
        if _serializes_as(field, base):
            return exact
    return None


def _serializes_as(field, base) -> bool:
    """``field`` is a ``base`` field, or a subclass that serializes as it does (Card)."""
    return isinstance(field, base) and type(field)._serialize is base._serialize


def _schema_function(schema) -> Callable[[Any], Any] | None:
    """A function dumping a dict as ``schema.dump`` would, generated once (one line per field,
    no call per scalar value); None when the schema needs marshmallow's own dump."""
    from marshmallow import missing

    hooks = getattr(schema, "_hooks", {})
    if any(hooks.get(name) for name in hooks if "dump" in str(name)) or schema.many:
        return None
    plan = _Plan()
    lines = ["def dump(obj):", "    if type(obj) is not dict:", "        raise _Fallback", "    out = {}",
             "    get = obj.get"]
    missing_name = plan.bind(missing)
    for name, field in schema.dump_fields.items():
        if (field.data_key not in (None, name) or field.attribute not in (None, name) or "." in name
                or field.dump_default is not missing or not getattr(field, "_CHECK_ATTRIBUTE", True)):
            return None
        plan.depth = 0
        code = _value_code(field, "_v0", plan)
        if code is None:
            return None
        lines += [f"    _v0 = get({name!r}, {missing_name})", f"    if _v0 is not {missing_name}:",
                  f"        out[{name!r}] = {code}"]
        if name in _DICT_ATTRIBUTES:  # marshmallow would find the dict's attribute of that name
            lines += ["    else:", "        raise _Fallback"]
    lines.append("    return out")
    namespace = dict(plan.names)
    exec(compile("\n".join(lines), f"<view dump of {type(schema).__name__}>", "exec"), namespace)
    return namespace["dump"]


def _options(schema) -> tuple:
    def frozen(value):
        return None if value is None else frozenset(value)
    return (type(schema), frozen(schema.only), frozen(schema.exclude), schema.many,
            frozen(schema.load_only), frozen(schema.dump_only), schema.partial is not None)


def compiled(schema) -> Callable[[Any], Any]:
    """``schema.dump`` for views, fast (above); marshmallow's own dump where that is needed.

    ``schema``: a Schema class (its default instance, made once: building a Schema deep-copies
    every declared field, ~40 % of a view request when it was done per request) or an instance.
    Compiled once per schema class and options."""
    if isinstance(schema, type):
        dump = _COMPILED.get(schema)
        if dump is None:
            dump = _COMPILED[schema] = compiled(schema())
        return dump
    key = _options(schema)
    dump = _COMPILED.get(key)
    if dump is None:
        fast = _schema_function(schema)

        def dump(data, fast=fast, schema=schema):
            if fast is not None:
                try:
                    return fast(data)
                except _Fallback:
                    pass
            return schema.dump(data)
        _COMPILED[key] = dump
    return dump


def documented_schema() -> Any:
    """The schema the current operation's ``@blp.response`` documents (its success response);
    looked up once per app, endpoint and method (``app.extensions["referee_documented"]``)."""
    req = request._get_current_object()
    app = current_app._get_current_object()
    known = app.extensions.setdefault("referee_documented", {})
    key = (req.endpoint, req.method)
    schema = known.get(key)
    if schema is None:
        view = app.view_functions[req.endpoint]
        handler = getattr(view.view_class, req.method.lower())
        apidoc = handler._apidoc
        status = apidoc["success_status_codes"][0]
        schema = known[key] = apidoc["response"]["responses"][status][0]["schema"]
    return schema


def view_response(data: dict[str, Any], schema=None) -> Response:
    """A view as a JSON response: as its observer built it (:func:`dumped`), not dumped again.

    ``schema``: the view's (default: the one the operation's ``@blp.response`` documents), which
    it is in the shape of.  The bytes are Flask's JSON (``app.json``, sorted keys), as
    flask-smorest's ``jsonify`` of the dump made them; flask-smorest returns a Response from a
    view as it is.
    """
    if schema is None:
        schema = documented_schema()
    return current_app.json.response(dumped(data, schema))


class ViewDrift(AssertionError):
    """A view is not in its schema's shape: it would send what the spec does not say (a 500; it
    is only looked for with ``CHECK_VIEWS``)."""


def dumped(data: dict[str, Any], schema) -> Any:
    """What every view and move answer sends for ``data``, the view its observer built: ``data``
    itself, which is already what ``schema`` dumps it to (above). With ``CHECK_VIEWS`` that is
    checked first: the JSON of the schema's dump must be the JSON of ``data``, else ViewDrift."""
    if current_app.config.get("CHECK_VIEWS"):
        check_view(data, schema)
    return data


def check_view(data: dict[str, Any], schema) -> None:
    """Raise :class:`ViewDrift` unless ``schema``'s dump of ``data`` is ``data``, as JSON bytes
    (so 1, 1.0 and true differ, and so does an undeclared field the dump would drop)."""
    encode = current_app.json
    expected = compiled(schema)(data)
    sent, wanted = encode.body(data), encode.body(expected)
    if sent is None or wanted is None:  # what orjson does not write: Flask's own encoder
        sent, wanted = encode.dumps(data), encode.dumps(expected)
    if sent != wanted:
        name = schema.__name__ if isinstance(schema, type) else type(schema).__name__
        raise ViewDrift(f"a view is not in the shape of {name}: {_first_difference(data, expected)}")


def _first_difference(sent: Any, dumped_: Any, path: str = "") -> str:
    if type(sent) is not type(dumped_):
        return f"{path or '/'}: {type(sent).__name__} {sent!r:.80} where the schema gives {type(dumped_).__name__} {dumped_!r:.80}"
    if isinstance(sent, dict):
        for key in [*sent, *(k for k in dumped_ if k not in sent)]:
            if key not in dumped_:
                return f"{path}/{key}: not declared by the schema"
            if key not in sent:
                return f"{path}/{key}: missing (the schema's dump has it)"
            found = _first_difference(sent[key], dumped_[key], f"{path}/{key}")
            if found:
                return found
        return ""
    if isinstance(sent, list):
        if len(sent) != len(dumped_):
            return f"{path}: {len(sent)} items where the dump has {len(dumped_)}"
        for i, (a, b) in enumerate(zip(sent, dumped_)):
            found = _first_difference(a, b, f"{path}/{i}")
            if found:
                return found
        return ""
    return "" if sent == dumped_ else f"{path or '/'}: {sent!r:.80} where the schema gives {dumped_!r:.80}"


def conditional(data: dict[str, Any], version: int, schema, tag: str = "") -> Any:
    """A view as a response with its ETag; 304 without a body when the client already has it.

    ``tag`` distinguishes views of one version that differ with time (a deadline that passed
    makes ``enforce_deadline`` legal without any new version).  ``schema`` documents the view
    and shapes it (:func:`view_response`).
    """
    if not_modified(version, tag):
        response = make_response("", 304)
    else:
        response = view_response(data, schema)
    response.headers["ETag"] = etag_for(version, tag)
    return response


def shared_view(record: Record, key: Hashable, build: Callable[[], dict[str, Any]], schema,
                tag_of: Callable[[dict[str, Any]], str] | None = None) -> Response:
    """:func:`conditional` of the view ``build()`` makes of ``record``, serialized once per key.

    A shared record (:meth:`Store.read`) is the same object for every read of the same stored
    bytes, and a view of it is a function of those bytes and ``key``: the seat it is made for and
    whatever of the clock it shows (each game's observer says what: ``view_clock``). So its body
    (the view as JSON, :func:`dumped`) and ETag tag are kept on the record (:attr:`Record.views`) and
    every later read with the same key sends those bytes without making the view again: every
    phone at a table polls between two moves. The key is looked up only after the caller is
    authorized for it, so a seat's kept view goes to nobody but that seat's token holder. A
    record that is not shared, or a body Flask's own encoder must write, is made every time.
    """
    views = record.views
    if views is None:
        data = build()
        return conditional(data, record.version, schema, "" if tag_of is None else tag_of(data))
    kept = views.get(key)
    if kept is None:
        data = build()
        tag = "" if tag_of is None else tag_of(data)
        body = current_app.json.body(dumped(data, schema))
        if body is None:  # Flask's own encoder must write it (debug mode, what orjson refuses): not kept
            return conditional(data, record.version, schema, tag)
        kept = views[key] = (tag, body)
    tag, body = kept
    if not_modified(record.version, tag):
        response = make_response("", 304)
    else:
        response = current_app.response_class(body, mimetype=current_app.json.mimetype)
    response.headers["ETag"] = etag_for(record.version, tag)
    return response


Transition = Callable[[Record, str, float], "Change | None"]


class _GuessFailed(Exception):
    """A move tried on the worker's latest record of the game (:meth:`Store.latest`) was refused,
    or changed nothing, there: that record may be stale, so the move is tried again on one read
    from the store (never a RefereeError: nothing on the way treats it as the move's refusal)."""


def act(kind: str, id: str, body: dict[str, Any], transition: Transition,
        respond: Callable[[Record], dict[str, Any]], may_act: Callable[[str, Record], None]) -> Response:
    """The one write path of every game: authorize, apply on the current state, store atomically.

    ``may_act(who, record)`` raises when the token's holder may not make this move;
    ``transition(record, who, at)`` returns the :class:`Change` to store, or
    ``None`` for an exact repeat (nothing changes, same answer).  A lost race
    is retried on the new state; ``body["version"]``, when sent, pins the
    version the move was decided on.  With an ``Idempotency-Key`` header the
    move runs at most once per key and a retry gets the first answer back.

    Redis, one round trip when this worker has the game's latest record (it saved or read the
    game last: :meth:`Store.latest`): the move is applied to that record and the save's
    compare-and-set, which carries the rate limiter's hit too, stores it only if it is still the
    current version. Otherwise — no record kept, a stale one (the save answers with the current
    record and the move is applied again to that), or a refusal or an exact repeat on it (tried
    again on a read record, so that no answer is ever decided on a stale record) — two: the
    HMGET the rate limiter's hit rides with (service.api.ratelimit), then the save's EVALSHA.
    Returns ``respond``'s view as a JSON response shaped by the operation's documented schema
    (:func:`view_response`), which flask-smorest passes on without dumping it again.
    """
    from service.api import idempotency

    presented = bearer_hash()
    expected = body.get("version")
    st = store()
    guess = st.latest(kind, id)

    def guarded(record: Record) -> Change | None:
        try:
            who = identify(record.doc["auth"], presented)
            may_act(who, record)
            if expected is not None and record.version != expected:
                raise StaleVersion(
                    f"you acted on version {expected} but the current version is {record.version}",
                    current_version=record.version,
                )
            change = transition(record, who, now())
        except RefereeError:
            if record is guess:
                raise _GuessFailed() from None
            raise
        if change is None and record is guess:
            raise _GuessFailed()
        return change

    answered: list[Record] = []

    def answer(record: Record) -> dict[str, Any]:
        data = respond(record)
        answered.append(record)
        return data

    def kept(response: Response) -> Response:
        # The answer is serialized: the state the move saved is the next move's to apply to here.
        if answered:
            st.keep(answered[-1])
        return response

    move = {"path": request.path, "body": body}
    if guess is not None:
        try:
            # Who may do this is settled before anything else (the idempotency record, the
            # version): a caller without the right token learns nothing but 401/403.
            try:
                may_act(identify(guess.doc["auth"], presented), guess)
            except RefereeError:
                raise _GuessFailed() from None
            return kept(view_response(idempotency.move(kind, id, presented, move, guarded, answer,
                                                       pinned=expected is not None, first=guess)))
        except _GuessFailed:
            st.drop_latest(kind, id)
            guess = None
            answered.clear()
    first = st.load(kind, id)
    may_act(identify(first.doc["auth"], presented), first)
    # With an Idempotency-Key the answer is stored by the same atomic save as the move.
    return kept(view_response(idempotency.move(kind, id, presented, move, guarded, answer,
                                               pinned=expected is not None, first=first)))
