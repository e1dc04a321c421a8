"""Request bodies loaded as marshmallow loads them, without its machinery for the usual body.

A move's body is a handful of integers and strings (``{"round": 3, "commitment": "…"}``).
marshmallow's ``Schema.load`` walks it through an error store, hooks, partial and unknown
handling and a ``deserialize`` per field: ~4 % of a move's CPU. :class:`FastLoadSchema`
is an ``ma.Schema`` whose ``load`` first tries a plan made once per schema: the body must be a
dict whose every key is a field, every required field present, each value of exactly the field's
type (``int`` for a strict Integer, ``str``, ``bool``, a list of those), and every validator of
the field must pass. Such a body is loaded to exactly what marshmallow returns (the same values,
the same keys in the same order, load defaults filled in). Anything else — a wrong type, a
``None``, an unknown or missing field, a failed validator — goes to marshmallow's own ``load``,
which says what is wrong in its own words: every error is marshmallow's. A schema the plan does
not cover (hooks, data keys, other field types, field pre/post-load functions, load options) is
always loaded by marshmallow. tests/test_fast_load.py holds both to the same results on
generated bodies, valid and not.
"""

from __future__ import annotations

from typing import Any, Callable

import marshmallow as ma
from marshmallow import fields as f
from marshmallow import missing

#: What a plan returns when marshmallow must load the body itself.
_OWN = object()


def _exact(field: ma.fields.Field) -> type | None:
    """int, str or bool: the one type a value of ``field`` may have to be taken as it is."""
    kind = type(field)
    if isinstance(field, f.Integer) and field.strict and kind._deserialize is f.Integer._deserialize \
            and kind._validated is f.Integer._validated and kind._format_num is f.Integer._format_num:
        return int
    if isinstance(field, f.String) and kind._deserialize is f.String._deserialize:
        return str
    return None


def _checks(field: ma.fields.Field) -> tuple[Callable[[Any], Any], ...]:
    return tuple(field.validators)


def _passes(checks: tuple[Callable[[Any], Any], ...], value: Any) -> bool:
    """Does ``value`` pass every validator (marshmallow's: raising ValidationError, or returning False)?"""
    for check in checks:
        try:
            if check(value) is False:
                return False
        except ma.ValidationError:
            return False
    return True


def _value_loader(field: ma.fields.Field) -> Callable[[Any], Any] | None:
    """A function loading one present value of ``field`` (returning ``_OWN`` to give up), or None."""
    if field.pre_load or field.post_load:
        return None
    checks = _checks(field)
    exact = _exact(field)
    if exact is not None:
        if not checks:
            return lambda value: value if type(value) is exact else _OWN
        return lambda value: value if type(value) is exact and _passes(checks, value) else _OWN
    if type(field) is f.Boolean:
        def boolean(value):
            if type(value) is not bool:
                return _OWN
            try:
                loaded = field._deserialize(value, None, None)
            except ma.ValidationError:
                return _OWN
            return loaded if _passes(checks, loaded) else _OWN
        return boolean
    if type(field) is f.List:
        inner = field.inner
        inner_exact = _exact(inner)
        if inner_exact is None or inner.pre_load or inner.post_load:
            return None
        inner_checks = _checks(inner)

        def items(value):
            if type(value) is not list:
                return _OWN
            for each in value:
                if type(each) is not inner_exact or not _passes(inner_checks, each):
                    return _OWN
            loaded = list(value)  # marshmallow's List returns a new list
            return loaded if _passes(checks, loaded) else _OWN
        return items
    return None


def _plan(schema: ma.Schema) -> Callable[[Any], Any] | None:
    """The fast load of ``schema`` (returning ``_OWN`` to give up), or None when not covered."""
    if (any(schema._hooks.values()) or schema.many or schema.partial or schema.unknown != ma.RAISE
            or schema.only is not None or schema.exclude or schema.load_only or schema.dump_only
            or getattr(schema, "dict_class", dict) is not dict):
        return None
    steps = []
    for name, field in schema.load_fields.items():
        if field.data_key not in (None, name) or field.attribute not in (None, name) or "." in name:
            return None
        loader = _value_loader(field)
        if loader is None:
            return None
        default = field.load_default
        steps.append((name, loader, field.required, default, callable(default)))
    known = frozenset(name for name, *_ in steps)

    def load(data):
        if type(data) is not dict or not known.issuperset(data):
            return _OWN
        out = {}
        for name, loader, required, default, call in steps:
            value = data.get(name, missing)
            if value is missing:
                if required:
                    return _OWN
                if default is not missing:
                    out[name] = default() if call else default
                continue
            loaded = loader(value)
            if loaded is _OWN:
                return _OWN
            out[name] = loaded
        return out
    return load


class FastLoadSchema(ma.Schema):
    """An ``ma.Schema`` whose ``load`` takes the usual valid body the short way (module docstring)."""

    def load(self, data, *, many=None, partial=None, unknown=None):
        if many is None and partial is None and unknown in (None, ma.RAISE):
            plan = self.__dict__.get("_fast_load", missing)
            if plan is missing:
                plan = self.__dict__["_fast_load"] = _plan(self)
            if plan is not None:
                loaded = plan(data)
                if loaded is not _OWN:
                    return loaded
        return super().load(data, many=many, partial=partial, unknown=unknown)
