"""Request bodies loaded the short way (service.api.loading) are loaded exactly as marshmallow does.

Every move schema of both games is given generated bodies — valid ones and every kind of wrong one
(wrong types, bools for integers, None, out-of-range numbers, bad hex, unknown and missing keys,
lists of the wrong things) — and its ``load`` must return what ``marshmallow.Schema.load`` returns
(same keys in the same order, same values and types) or raise the same errors.
"""

from __future__ import annotations

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.api import gofo_schemas, gops_schemas
from service.api.loading import FastLoadSchema, _plan
from service.games.gofo.cards import DECK

MOVE_SCHEMAS = [
    gops_schemas.CommitSchema, gops_schemas.RevealSchema, gops_schemas.RankSchema, gops_schemas.EmptyActionSchema,
    gofo_schemas.OpenSchema, gofo_schemas.EnterSchema, gofo_schemas.AmountSchema, gofo_schemas.DiscardSchema,
    gofo_schemas.InaugurateSchema, gofo_schemas.ShowSchema, gofo_schemas.DeclareSchema, gofo_schemas.NoBodySchema,
]

HEX = "0123456789abcdef"
scalars = st.one_of(
    st.integers(min_value=-3, max_value=40), st.integers(), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=40),
    st.text(alphabet=HEX, min_size=63, max_size=65), st.text(alphabet=HEX + "G\n", min_size=64, max_size=64),
    st.sampled_from(list(DECK) + ["", "14X", "game-1", "A" * 65, "1"]), st.text(max_size=5),
)
values = st.one_of(scalars, st.lists(scalars, max_size=7), st.lists(st.sampled_from(DECK), max_size=6),
                   st.lists(st.integers(min_value=0, max_value=14), max_size=14),
                   st.dictionaries(st.text(max_size=3), scalars, max_size=2))


def _bodies(schema: ma.Schema):
    names = list(schema.load_fields) + ["extra", "Round", ""]
    return st.one_of(
        st.dictionaries(st.sampled_from(names), values, max_size=len(names)),
        st.dictionaries(st.sampled_from(list(schema.load_fields) or ["version"]), values),
        values,  # not an object at all
    )


def _both(schema: ma.Schema, body):
    def run(load):
        try:
            return "ok", load(body)
        except ma.ValidationError as error:
            return "error", error.messages
    return run(schema.load), run(lambda data: ma.Schema.load(schema, data))


@pytest.mark.parametrize("schema_class", MOVE_SCHEMAS, ids=lambda s: s.__name__)
def test_every_move_schema_takes_the_short_way(schema_class):
    schema = schema_class()
    assert isinstance(schema, FastLoadSchema) and _plan(schema) is not None


@pytest.mark.parametrize("schema_class", MOVE_SCHEMAS, ids=lambda s: s.__name__)
def test_loads_as_marshmallow_does(schema_class):
    schema = schema_class()

    @settings(max_examples=250)
    @given(st.data())
    def check(data):
        body = data.draw(_bodies(schema))
        fast, reference = _both(schema, body)
        assert fast == reference, body
        if fast[0] == "ok":
            assert list(fast[1]) == list(reference[1])
            assert [type(v) for v in fast[1].values()] == [type(v) for v in reference[1].values()]
    check()


def test_the_usual_bodies_are_loaded_without_marshmallow(monkeypatch):
    """The short way is really taken for valid bodies (marshmallow's load is never called)."""
    calls = []
    original = ma.Schema.load
    monkeypatch.setattr(ma.Schema, "load", lambda self, *a, **k: calls.append(a) or original(self, *a, **k))
    commit = gops_schemas.CommitSchema()
    assert commit.load({"round": 3, "commitment": "a" * 64, "version": 4}) == \
        {"version": 4, "round": 3, "commitment": "a" * 64}
    assert gofo_schemas.DiscardSchema().load({}) == {"cards": []}  # the load default, made fresh
    assert gofo_schemas.EnterSchema().load({"blind": False}) == {"blind": False}
    assert calls == []
    with pytest.raises(ma.ValidationError) as refused:
        commit.load({"round": True, "commitment": "a" * 64})
    assert refused.value.messages == {"round": ["Not a valid integer."]} and len(calls) == 1


def test_schemas_it_does_not_cover_are_loaded_by_marshmallow():
    class Hooked(FastLoadSchema):
        n = ma.fields.Integer(strict=True)

        @ma.post_load
        def double(self, data, **kwargs):
            return {"n": data["n"] * 2}

    class Keyed(FastLoadSchema):
        n = ma.fields.Integer(strict=True, data_key="N")

    class Loose(FastLoadSchema):
        n = ma.fields.Integer()  # not strict: "3" is 3

    assert _plan(Hooked()) is None and Hooked().load({"n": 2}) == {"n": 4}
    assert _plan(Keyed()) is None and Keyed().load({"N": 2}) == {"n": 2}
    assert Loose().load({"n": "3"}) == {"n": 3}
    assert _plan(gops_schemas.CommitSchema(partial=True)) is None
    assert gops_schemas.CommitSchema().load({"round": 1}, partial=True) == {"round": 1}
