"""Commit–reveal hashing (service/games/commitments.py) and its use by the Gops engine.

The test vectors are computed twice: once with hashlib on the literal message
text of shared/rules/gops.md, once hard-coded, so a change to the format, to
the encoding or to the hash fails here (and clients in other languages can
check their own hashing against the same table).
"""

from __future__ import annotations

import hashlib

import pytest

from support.gops_helpers import Driver, det_salt, expect_error, new_game, spec_commitment
from service.games import commitments as C
from service.games import gops as G
from service.errors import InvalidAction

# (game id, round, seat, cards, salt, literal message, expected lowercase hex digest)
BID_VECTORS = [
    ("g1", 1, 0, [9], "00" * 32,
     "gops-bid-v1|g1|1|0|9|0000000000000000000000000000000000000000000000000000000000000000",
     "46d7d03167c517bb7c078be660341cb9f2eaf24ef113d2c1e6c98c12475cc50a"),
    ("demo-game_7", 3, 1, [3, 11], "0123456789abcdef" * 4,
     "gops-bid-v1|demo-game_7|3|1|3,11|0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     "c8c8e73e13989124a2f7221cd08c4a979db608bab407e8e655696f8a9413db6d"),
    ("X", 13, 6, [13], "ff" * 32,
     "gops-bid-v1|X|13|6|13|ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "0f508fa78c9056dbc6617469ff7cb72544690fa7584a4519ee9b973d9ad50fb8"),
    ("match-2", 1, 2, [1, 2], "a5" * 32,
     "gops-bid-v1|match-2|1|2|1,2|a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
     "38bcfb060e328564a781a3a025c3d1f83715fa783e482772a83cd3e2e5d37bfd"),
]

PRIZE_VECTOR = (
    "g1", [8, 5, 1, 2, 3, 4, 6, 7, 9, 10, 11, 12, 13], "11" * 32,
    "gops-prizes-v1|g1|8,5,1,2,3,4,6,7,9,10,11,12,13|" + "11" * 32,
    "3f137ef8977b67b9ddac4a92a3ff55b723be0a0779ba3b9acdd87310b2c0dea8",
)


# ------------------------------------------------------------------ test vectors


@pytest.mark.parametrize("gid,rnd,seat,cards,salt,message,digest", BID_VECTORS)
def test_bid_vector_message_is_the_spec_text(gid, rnd, seat, cards, salt, message, digest):
    assert C.bid_message(gid, rnd, seat, cards, salt) == message


@pytest.mark.parametrize("gid,rnd,seat,cards,salt,message,digest", BID_VECTORS)
def test_bid_vector_digest_hashlib_and_hardcoded(gid, rnd, seat, cards, salt, message, digest):
    independent = hashlib.sha256(message.encode("utf-8")).hexdigest()
    assert independent == digest  # the table itself is right
    assert C.bid_commitment(gid, rnd, seat, cards, salt) == digest
    assert spec_commitment(gid, rnd, seat, cards, salt) == digest


def test_bid_vectors_are_lowercase_hex_64():
    for *_, digest in BID_VECTORS:
        assert len(digest) == 64 and digest == digest.lower()
        C.check_commitment_format(digest)


def test_module_doctest_vector():
    assert C.bid_commitment("g1", 1, 0, [9], "00" * 32)[:16] == "46d7d03167c517bb"


def test_cards_keep_the_players_order():
    salt = "ab" * 32
    assert C.bid_message("g", 1, 0, [11, 3], salt) == f"gops-bid-v1|g|1|0|11,3|{salt}"
    assert C.bid_commitment("g", 1, 0, [11, 3], salt) != C.bid_commitment("g", 1, 0, [3, 11], salt)


def test_every_field_changes_the_digest():
    base = ("g1", 2, 1, [5], "cd" * 32)
    d0 = C.bid_commitment(*base)
    variants = [
        ("g2", 2, 1, [5], "cd" * 32),
        ("g1", 3, 1, [5], "cd" * 32),
        ("g1", 2, 0, [5], "cd" * 32),
        ("g1", 2, 1, [6], "cd" * 32),
        ("g1", 2, 1, [5], "ce" + "cd" * 31),
    ]
    assert len({d0, *(C.bid_commitment(*v) for v in variants)}) == 6


def test_prize_order_vector():
    gid, order, salt, message, digest = PRIZE_VECTOR
    assert C.prize_order_message(gid, order, salt) == message
    assert hashlib.sha256(message.encode()).hexdigest() == digest
    assert C.prize_order_commitment(gid, order, salt) == digest


# Hard-coded so a change to the Gofo formats fails here (clients check their own code against them).
LEAF_VECTOR = "c0136c4e8319819fdadfd77f9a9ceefba906be13417d181380e73c279a79c4da"
DERIVED_VECTOR = ["c7", "c5", "c9", "c0", "c6", "c2", "c3", "c8", "c1", "c4"]


def test_gofo_deck_commitment_formats():
    sha = lambda text: hashlib.sha256(text.encode()).hexdigest()  # noqa: E731
    leaf = C.card_leaf("T-1", 0, "11e", "00" * 32)
    assert leaf == sha("gofo-card-v1|T-1|0|11e|" + "00" * 32)
    assert leaf == LEAF_VECTOR
    key_leaf = C.reshuffle_key_leaf("T-1", 1, "ff" * 32)
    assert key_leaf == sha("gofo-reshuffle-key-v2|T-1|1|" + "ff" * 32)
    key_hash = C.reshuffle_key_hash("T-1", [key_leaf, key_leaf])
    assert key_hash == sha(f"gofo-reshuffle-keys-v2|T-1|{key_leaf},{key_leaf}")
    assert C.deck_commitment("T-1", [leaf, leaf], key_hash) == sha(f"gofo-deck-v2|T-1|{leaf},{leaf}|{key_hash}")
    assert C.reshuffle_seed("T-1", 2, "ff" * 32) == "gofo-reshuffle-v1|T-1|2|" + "ff" * 32


def test_derived_shuffle_is_a_fixed_permutation():
    items = [f"c{i}" for i in range(10)]
    once = C.derived_shuffle("seed", items)
    assert sorted(once) == sorted(items) and once == C.derived_shuffle("seed", items)
    assert once != C.derived_shuffle("other seed", items)
    assert once == DERIVED_VECTOR


# ------------------------------------------------------------------ salts & formats


def test_new_salt_is_64_lowercase_hex_and_random():
    salts = {C.new_salt() for _ in range(20)}
    assert len(salts) == 20
    for s in salts:
        C.check_salt(s)
        assert len(s) == 64 and s == s.lower() and int(s, 16) >= 0


@pytest.mark.parametrize("salt", [
    "", "00" * 31, "00" * 33, "AB" * 32, "Ab" + "00" * 31, "g" + "0" * 63, "0" * 63 + " ",
    " " + "0" * 63, None, 12345, b"00" * 32, "0x" + "0" * 62,
])
def test_bad_salts_refused(salt):
    with pytest.raises(InvalidAction) as info:
        C.check_salt(salt)
    assert info.value.code == "invalid_salt"


@pytest.mark.parametrize("commitment", ["", "A" * 64, "0" * 63, "0" * 65, "z" * 64, None])
def test_bad_commitment_formats_refused(commitment):
    with pytest.raises(InvalidAction) as info:
        C.check_commitment_format(commitment)
    assert info.value.code == "invalid_commitment"


def test_matches_is_exact():
    d = C.bid_commitment("g1", 1, 0, [9], "00" * 32)
    assert C.matches(d, d)
    assert not C.matches(d, d[:-1] + ("0" if d[-1] != "0" else "1"))


# ------------------------------------------------------------------ engine: commit & reveal


def two_player(**opts):
    opts.setdefault("prize_order", "ascending")
    opts.setdefault("ranks", 5)
    return Driver(new_game("g1", **opts))


def test_engine_commitment_is_the_spec_hash():
    d = two_player()
    salt0, salt1 = "00" * 32, "0123456789abcdef" * 4
    c0 = spec_commitment("g1", 1, 0, [4], salt0)
    c1 = spec_commitment("g1", 1, 1, [2], salt1)
    d.do(G.Commit(0, 1, c0))
    d.do(G.Commit(1, 1, c1))
    d.do(G.Reveal(0, 1, (4,), salt0))
    d.do(G.Reveal(1, 1, (2,), salt1))
    rec = d.g.history[0].to_dict()
    assert rec["sealed"] == {"0": c0[:16], "1": c1[:16]}  # the commitments themselves are in the log
    assert rec["bids"] == {"0": [4], "1": [2]}
    assert d.g.scores == [1, 0]


def test_engine_multicard_commitment_uses_comma_joined_order():
    d = two_player(ranks=6, bid_cards=2)
    salt = "ab" * 32
    d.do(G.Commit(0, 1, spec_commitment("g1", 1, 0, [5, 1], salt)))
    d.do(G.Commit(1, 1, spec_commitment("g1", 1, 1, [2, 3], salt)))
    # the same cards in the other order do not hash to the commitment
    expect_error(d.state, G.Reveal(0, 1, (1, 5), salt), "commitment_mismatch")
    d.do(G.Reveal(0, 1, (5, 1), salt))
    d.do(G.Reveal(1, 1, (2, 3), salt))
    assert d.g.history[0].to_dict()["winners"] == [0]


def test_commit_with_bad_commitment_format_refused():
    d = two_player()
    expect_error(d.state, G.Commit(0, 1, "A" * 64), "invalid_commitment")
    expect_error(d.state, G.Commit(0, 1, "abc"), "invalid_commitment")


def test_reveal_with_bad_salt_refused():
    d = two_player()
    d.commit(0, 3)
    d.commit(1, 2)
    good = det_salt("g1", 1, 0)
    expect_error(d.state, G.Reveal(0, 1, (3,), good.upper()), "invalid_salt")
    expect_error(d.state, G.Reveal(0, 1, (3,), good[:-2]), "invalid_salt")


def _entry(state: G.Gops, version: int, action) -> dict:
    """A transcript entry as the HTTP layer records it (game and round in progress when applied)."""
    by = f"seat:{action.seat}" if hasattr(action, "seat") else "host"
    return {"version": version, "at": 0.0, "by": by, "game": state.game.number, "round": state.game.round,
            "action": G.action_to_dict(action)}


class Logged(Driver):
    """A driver that also keeps the transcript entries the referee would record."""

    def __init__(self, state):
        super().__init__(state)
        self.entries: list[dict] = []

    def do(self, action, now=None):
        entry = _entry(self.state, len(self.entries) + 1, action)
        changed = super().do(action, now)
        if changed:
            self.entries.append(entry)
        return changed


def _seen_by(state: G.Gops, entries: list[dict], seat: int | None) -> str:
    """Everything ``seat`` (None: the public) can read, as one text: its view and the transcript."""
    return repr(G.view(state, seat)) + repr(G.transcript(state, entries, seat))


def test_commitments_withheld_from_everyone_else_until_all_committed():
    """until every seat of the round has committed, the others see only *that* a
    seat committed — in the view and the transcript — never its commitment."""
    d = Logged(new_game("g1", players=3, ranks=5, prize_order="ascending"))
    c0, _ = d.commit(0, 3)
    for seat in (None, 1, 2):
        v = G.view(d.state, seat)
        assert v["committed"] == [0] and v["commitments"] == {}
        assert c0 not in _seen_by(d.state, d.entries, seat)
        (entry,) = G.transcript(d.state, d.entries, seat)["entries"]
        assert entry["action"]["commitment"] is None and entry["action"]["seat"] == 0
    assert G.view(d.state, 0)["commitments"] == {"0": c0}  # the committing seat sees its own
    assert G.transcript(d.state, d.entries, 0)["entries"][0]["action"]["commitment"] == c0
    c1, _ = d.commit(1, 2)
    assert G.view(d.state, 1)["commitments"] == {"1": c1}
    for seat in (None, 2):
        assert G.view(d.state, seat)["commitments"] == {}
        assert c0 not in _seen_by(d.state, d.entries, seat) and c1 not in _seen_by(d.state, d.entries, seat)
    c2, _ = d.commit(2, 1)
    # every bid is locked: the commitments are published, so reveals can be checked by anyone
    assert d.state.phase == "reveal"
    for seat in (None, 0, 1, 2):
        assert G.view(d.state, seat)["commitments"] == {"0": c0, "1": c1, "2": c2}
        assert [e["action"]["commitment"] for e in G.transcript(d.state, d.entries, seat)["entries"]] == [c0, c1, c2]


def test_reused_salt_cannot_be_brute_forced_before_committing():
    """The salt-reuse attack: seat 0 reuses in round 2 the salt it revealed in round 1; seat 1 tries the
    13 possible bids against everything it can read before committing its own — and finds nothing."""
    d = Logged(new_game("g1", ranks=13, prize_order="ascending"))
    salt = "5a" * 32
    d.do(G.Commit(0, 1, C.bid_commitment("g1", 1, 0, [7], salt)))
    d.commit(1, 1)
    d.do(G.Reveal(0, 1, (7,), salt))
    d.reveal(1, 1)
    assert salt in _seen_by(d.state, d.entries, 1)  # round 1's salt is public now
    secret = C.bid_commitment("g1", 2, 0, [9], salt)  # round 2, the same salt (a client bug)
    d.do(G.Commit(0, 2, secret))
    seen = _seen_by(d.state, d.entries, 1) + _seen_by(d.state, d.entries, None)
    guesses = {c: C.bid_commitment("g1", 2, 0, [c], salt) for c in range(1, 14)}
    assert [c for c, h in guesses.items() if h in seen] == []
    # once seat 1 has committed, every bid is locked: only then is the commitment published
    d.commit(1, 2)
    assert G.view(d.state, 1)["commitments"]["0"] == secret == guesses[9]


def test_a_copied_commitment_is_no_oracle():
    """Submitting a guess of another seat's commitment as one's own answers exactly as a wrong guess does:
    both are accepted (nothing is refused as a duplicate), and the copy can never be opened by the copier."""
    answers = []
    for right in (True, False):
        d = Driver(new_game("g1", players=3, ranks=5, prize_order="ascending", deadline_seconds=30))
        salt = "5a" * 32
        d.do(G.Commit(0, 1, C.bid_commitment("g1", 1, 0, [4], salt)))
        guess = C.bid_commitment("g1", 1, 0, [4 if right else 3], salt)
        changed = d.state.apply(G.Commit(1, 1, guess), now=1.0)
        view = G.view(d.state, 1, 1.0)
        assert view["commitments"] == {"1": guess}
        view["commitments"] = {"1": "<the guess>"}
        answers.append((changed, view))
        if right:
            assert d.g.commitments[0] == d.g.commitments[1]
            d.commit(2, 1)
            # the copier cannot open seat 0's commitment: the message names the seat
            expect_error(d.state, G.Reveal(1, 1, (4,), salt), "commitment_mismatch")
            d.reveal(0, 4, salt=salt)
            d.reveal(2, 1)
            d.do(G.EnforceDeadline(), now=31.0)
            assert d.g.forfeited == {1: "deadline"} and d.g.history[0].to_dict()["winners"] == [0]
    assert answers[0] == answers[1]


def test_commitment_cannot_change():
    d = Driver(new_game("g1", players=3, ranks=5, prize_order="ascending"))
    c0, _ = d.commit(0, 3)
    other = C.bid_commitment("g1", 1, 0, [4], det_salt("x"))
    expect_error(d.state, G.Commit(0, 1, other), "already_committed")
    assert d.g.commitments[0] == c0


def test_identical_repeat_commit_is_a_noop():
    d = Driver(new_game("g1", players=3, ranks=5, prize_order="ascending"))
    c0, _ = d.commit(0, 3)
    before = d.state.to_dict()
    assert d.state.apply(G.Commit(0, 1, c0)) is False
    assert d.state.to_dict() == before


def test_identical_repeat_commit_after_phase_change_is_a_noop():
    d = two_player()
    c0, _ = d.commit(0, 3)
    d.commit(1, 2)
    assert d.state.phase == "reveal"
    before = d.state.to_dict()
    assert d.state.apply(G.Commit(0, 1, c0)) is False
    assert d.state.to_dict() == before


def test_identical_repeat_reveal_is_a_noop_and_past_round_repeats_too():
    d = Driver(new_game("g1", players=3, ranks=5, prize_order="ascending"))
    c = [d.commit(s, b)[0] for s, b in enumerate([3, 2, 1])]
    d.reveal(0, 3)
    before = d.state.to_dict()
    assert d.state.apply(G.Reveal(0, 1, (3,), det_salt("g1", 1, 0))) is False
    assert d.state.to_dict() == before
    d.reveal(1, 2)
    d.reveal(2, 1)
    assert d.g.round == 2
    before = d.state.to_dict()
    # a retried round-1 request after the round resolved changes nothing
    assert d.state.apply(G.Commit(1, 1, c[1])) is False
    assert d.state.apply(G.Reveal(2, 1, (1,), det_salt("g1", 1, 2))) is False
    assert d.state.to_dict() == before


def test_reveal_with_wrong_cards_or_salt_is_a_mismatch():
    d = two_player()
    d.commit(0, 3)
    d.commit(1, 2)
    good = det_salt("g1", 1, 0)
    expect_error(d.state, G.Reveal(0, 1, (4,), good), "commitment_mismatch")
    expect_error(d.state, G.Reveal(0, 1, (3,), det_salt("other")), "commitment_mismatch")
    d.reveal(0, 3)
    assert d.g.reveals[0].cards == (3,)


@pytest.mark.parametrize("which", ["round", "seat", "game"])
def test_commitment_replayed_elsewhere_does_not_verify(which):
    """A commitment (and its reveal) copied from another round / seat / game never verifies."""
    salt = "42" * 32
    d = Driver(new_game("g1", ranks=5, prize_order="ascending"))
    if which == "round":
        d.bid_round([1, 2])
        assert d.g.round == 2
        # seat 0 replays its round-1-style commitment to a 5 for round 1 in round 2
        replayed = C.bid_commitment("g1", 1, 0, [5], salt)
        d.do(G.Commit(0, 2, replayed))
        d.commit(1, 4)
        expect_error(d.state, G.Reveal(0, 2, (5,), salt), "commitment_mismatch")
    elif which == "seat":
        replayed = C.bid_commitment("g1", 1, 1, [5], salt)  # made for seat 1
        d.do(G.Commit(0, 1, replayed))
        d.commit(1, 4)
        expect_error(d.state, G.Reveal(0, 1, (5,), salt), "commitment_mismatch")
    else:
        replayed = C.bid_commitment("g2", 1, 0, [5], salt)  # made for another game
        d.do(G.Commit(0, 1, replayed))
        d.commit(1, 4)
        expect_error(d.state, G.Reveal(0, 1, (5,), salt), "commitment_mismatch")


def test_match_games_have_distinct_ids_for_commitments():
    match = G.make_match_rules("cumulative", games=2)
    d = Driver(new_game("m", ranks=1, prize_order="ascending", match=match))
    assert d.g.game_id != "m"
    first = d.g.game_id
    d.bid_round([1, 1])
    assert d.state.game.number == 2 and d.g.game_id != first
    salt = "42" * 32
    d.do(G.Commit(0, 1, C.bid_commitment(first, 1, 0, [1], salt)))  # made for game 1
    d.commit(1, 1)
    expect_error(d.state, G.Reveal(0, 1, (1,), salt), "commitment_mismatch")


def test_reveals_hidden_from_other_seats_until_all_revealed():
    d = Driver(new_game("g1", players=3, ranks=5, prize_order="ascending"))
    for s, b in enumerate([5, 4, 3]):
        d.commit(s, b)
    d.reveal(0, 5)
    d.reveal(1, 4)
    for seat in (None, 1, 2):
        v = G.view(d.state, seat)
        assert v.get("my_reveal") in (None, {"cards": [4], "salt": det_salt("g1", 1, 1)})
        text = repr(v)
        assert det_salt("g1", 1, 0) not in text
        assert v["hands"][0] == [1, 2, 3, 4, 5]  # the unresolved bid is not spent yet
        assert v["history"] == []
        assert v["revealed"] == [0, 1]
    v0 = G.view(d.state, 0)
    assert v0["my_reveal"] == {"cards": [5], "salt": det_salt("g1", 1, 0)}
    assert det_salt("g1", 1, 1) not in repr(v0)
    d.reveal(2, 3)
    v = G.view(d.state, None)
    assert v["history"][0]["bids"] == {"0": [5], "1": [4], "2": [3]}
    assert v["hands"][0] == [1, 2, 3, 4]
