"""Everything a caller may see of a Gofo table — the public, a seat, the host — during and after a
hand, the transcript included: nothing leaves the service without passing through here.

During a hand: :func:`table_view`; after it, what its deal opens (:func:`publish`), decided from
the hand's *public* record alone; a stored table (:mod:`service.games.gofo.referee`'s document):
:func:`record_view`, :func:`ledger_view`, :func:`transcript_view`.
"""

from __future__ import annotations

from typing import Any, Iterable

from service.games.contract import bot_list
from service.games.gofo import clock
from service.games.gofo.cards import sort_cards
from service.games.gofo.chance import hand_id
from service.games.gofo.hand import HandState
from service.games.gofo.records import HandRecord
from service.games.gofo.rules import HAND_SIZE, Mode, Status
from service.games.gofo.table import Table
from service.games.gofo.value import hand_value

# ------------------------------------------------------------------ during a hand


def visible_cards(hand: HandState, seat: int) -> list[str]:
    """The cards of its own hand that ``seat`` may see now (dealt mode): all of them once it has
    looked (or the hand was completed), else only those past the first two.  A folded or declined
    hand is seen by nobody, its owner included."""
    if hand.mode is not Mode.DEALT or hand.status[seat] not in (Status.PENDING, Status.IN):
        return []
    cards = hand.hands[seat]
    return list(cards) if hand.looked[seat] else list(cards[2:])


def known_out(hand: HandState) -> list[str]:
    """Tabletop: the cards thrown face up in this hand that are known to be out of play — in the pile
    since the last reported reshuffle (a reshuffle puts the pile back into the stock, so the cards
    thrown before it may be drawn again) or kept face up to a player's right.  Exactly the cards the
    referee refuses as ``duplicate_card`` in a face-up discard or at the canto."""
    return sort_cards(set(hand.known_pile) | {c for k in hand.kept for c in k})


def hand_view(hand: HandState, seat: int | None = None) -> dict[str, Any]:
    """What ``seat`` may see of a :class:`service.games.gofo.hand.HandState` (``None``: the public view).
    Cards appear only when allowed: one's own (the first two once looked at), face-up discards,
    cards kept to the right, and the hands shown at the canto."""
    public: dict[str, Any] = {
        "mode": hand.mode.value, "phase": hand.phase.value, "dealer": hand.dealer, "mano": hand.mano,
        "to_act": hand.to_act(), "chance": (hand.chance_request() or {}).get("kind"),
        "opening": hand.opening, "round": hand.round, "after_corte": hand.after_corte,
        "final_discard": hand.final_discard, "keep_right": hand.keep_right,
        "status": [s.value for s in hand.status], "blind": list(hand.blind), "looked": list(hand.looked),
        "stacks": list(hand.stacks), "committed": list(hand.committed),
        "resto": [hand.remaining(s) for s in range(hand.n)],
        "pots": [p.to_dict() for p in hand.pots()],
        "bet": hand.bet.to_dict() if hand.bet is not None else None,
        "discards": [d.to_dict() for d in hand.discard_log],
        "kept": [list(k) for k in hand.kept], "kept_count": list(hand.kept_count),
        "result": hand.result.to_dict() if hand.result is not None else None,
    }
    if hand.mode is Mode.DEALT:
        public["card_counts"] = [len(h) for h in hand.hands]
        public["stock_count"] = len(hand.stock)
        public["pile_count"] = len(hand.pile)
    else:
        public["known_out"] = known_out(hand)
    if hand.canto is not None:
        canto = hand.canto.to_dict()
        public["canto"] = {"stage": canto["stage"], "declared": canto["declared"], "cards": canto["cards"]}
    if seat is not None:
        public["seat"] = seat
        public["legal_actions"] = [a.to_dict() for a in hand.legal_actions(seat)]
        if hand.mode is Mode.DEALT:
            mine = visible_cards(hand, seat)
            public["my_cards"] = mine
            public["my_value"] = hand_value(mine) if len(mine) == HAND_SIZE else None
    return public


def table_view(table: Table, seat: int | None = None) -> dict[str, Any]:
    """Everything ``seat`` may see of a table (``None``: the public view), its hand by :func:`hand_view`;
    ``inaugurations_pending``: the seats still to choose the front of a new caja (``hand`` is ``None``
    until the last has chosen), ``inauguration_fronts``: the fronts they may choose."""
    seats = [{"seat": s, "front": table.fronts[s], "behind": table.behinds[s],
              "cajas": table.cajas[s], "balance": table.balance(s)} for s in range(table.n)]
    info = {
        "options": table.options.to_dict(), "dealer": table.dealer,
        "hand_number": table.hand_number, "seats": seats,
        "draws": [[list(d) for d in drawn] for drawn in table.draws], "draw_seats": list(table.draw_seats),
        "last_result": table.last_result.to_dict() if table.last_result is not None else None,
    }
    if table.options.chosen_inauguration:  # only there, so other tables' views read as before
        info["inaugurations_pending"] = list(table.inaugurations_pending)
        info["inauguration_fronts"] = table.options.inauguration_fronts()
    return {"table": info, "hand": hand_view(table.hand, seat) if table.hand is not None else None}


# ------------------------------------------------------------------ after a hand: what its deal opens


def public_cards(record: HandRecord) -> set[str]:
    """Cards a finished hand showed face up: thrown, kept to the right, shown at the canto."""
    cards = {c for d in record.discards for c in d.cards or ()}
    cards |= {c for kept in record.kept for c in kept}
    cards |= {c for shown in record.result.shown for c in shown or ()}
    return cards


def first_shown_by(record: HandRecord) -> dict[str, int]:
    """card -> the seat that first showed it face up (its discards in order, then the canto)."""
    first: dict[str, int] = {}
    for discard in record.discards:
        for card in discard.cards or ():
            first.setdefault(card, discard.seat)
    for seat, shown in enumerate(record.result.shown):
        for card in shown or ():
            first.setdefault(card, seat)
    return first


def tainted_seats(record: HandRecord) -> set[int]:
    """Seats that drew from a reshuffle whose pile held a folded or declined hand."""
    return {s for r in record.reshuffles or () if not r.clean for s in r.drawers}


def opened_cards(record: HandRecord) -> set[str]:
    """The cards whose deck position a finished hand opens: first shown face up by a seat that
    never drew from a tainted reshuffle (such a card came straight from the deck to that seat).
    Opening a card that came back from a folded hand would name the folded seat (who receives each
    position is public); opening only some of a tainted seat's cards would single out the rest."""
    tainted = tainted_seats(record)
    return {card for card, seat in first_shown_by(record).items() if seat not in tainted}


def revealed_reshuffles(record: HandRecord) -> list[int]:
    """The reshuffles (numbered from 1) whose key a finished hand reveals: the pile held only cards
    thrown face up, and every seat that drew from it showed its hand at the canto (else the key
    would tell who drew which card of the pile, so where a folded or unshown card went)."""
    shown = record.result.shown
    return [k for k, r in enumerate(record.reshuffles or (), 1)
            if r.clean and all(0 <= s < len(shown) and shown[s] is not None for s in r.drawers)]


def publish(deal: dict[str, Any], result: HandRecord) -> dict[str, Any] | None:
    """A finished hand's deal as published: every leaf, the openings :func:`opened_cards` allows,
    the keys of the reshuffles :func:`revealed_reshuffles` allows.  Nothing else.  ``None`` for a
    hand dealt under the old format (one reshuffle key): it cannot be opened this way."""
    if "reshuffle_key_leaves" not in deal:
        return None
    opened = opened_cards(result)
    revealed = revealed_reshuffles(result)
    return {
        "hand": deal["hand"], "hand_id": deal["hand_id"], "commitment": deal["commitment"],
        "leaves": list(deal["leaves"]), "reshuffle_key_hash": deal["reshuffle_key_hash"],
        "reshuffle_key_leaves": list(deal["reshuffle_key_leaves"]),
        "openings": [{"position": i, "card": card, "salt": deal["salts"][i]}
                     for i, card in enumerate(deal["order"]) if card in opened],
        "reshuffle_keys": [{"number": k, "key": deal["reshuffle_keys"][k - 1]} for k in revealed],
    }


def redact_entry(action: dict[str, Any], number_in_hand: int, result: HandRecord | None) -> dict[str, Any]:
    """A ``shuffle`` or ``reshuffle`` transcript action as published.  ``result``: the hand's
    result, ``None`` while it is in progress (then the order is withheld).  A finished hand's
    shuffle shows the opened cards at their positions (``null`` elsewhere, or ``null`` as a whole
    when nothing opened); its ``number_in_hand``-th reshuffle shows its whole order when its key is
    revealed, else ``null``."""
    if action.get("order") is None:
        return dict(action)
    if result is None:
        return dict(action, order=None)
    if action["type"] == "shuffle":
        opened = opened_cards(result)
        order = [card if card in opened else None for card in action["order"]]
        return dict(action, order=order if opened else None)
    revealed = number_in_hand in revealed_reshuffles(result)
    return dict(action, order=list(action["order"]) if revealed else None)


# ------------------------------------------------------------------ a stored table


def result_of(doc: dict[str, Any], number: int, record: HandRecord | None = None) -> HandRecord | None:
    """The recorded result of hand ``number`` of a stored table (``None`` while it is not finished).
    ``record``: the caller's copy of a hand's record (the table's ``last_result``), taken when it is
    of that hand, instead of reading the document's again."""
    results = doc["results"]
    result = results[number - 1] if 0 < number <= len(results) else None
    if result is None or result.get("hand") != number:
        return None
    return record if record is not None and record.hand == number else HandRecord.from_dict(result)


def published(doc: dict[str, Any], number: int, record: HandRecord | None = None) -> dict[str, Any] | None:
    """A finished hand's deal as :func:`publish` opens it (``None``: not finished, or not dealt).
    ``record``: as for :func:`result_of`."""
    secret = doc["deals"].get(str(number))
    if secret is None:
        return None
    result = result_of(doc, number, record)
    return publish(secret, result) if result is not None else None


def record_view(doc: dict[str, Any], version: int, seat: int | None = None, table: Table | None = None) -> dict[str, Any]:
    """The view of a stored table: :func:`table_view` of its state, with its id and version, the turn
    clock, the hand's id and deck commitment, the last finished hand's published deal and the
    first-dealer draw commitments (their decks only in the transcript), and the seats the referee
    plays (``bots``: ``[{"seat", "level"}]`` by seat, ``[]`` when none).  ``table``: the
    :class:`~service.games.gofo.table.Table` of ``doc["state"]`` when the caller has it (else loaded)."""
    if table is None:
        table = Table.from_dict(doc["state"])
    data = table_view(table, seat)
    data["id"] = doc["id"]
    data["version"] = version
    data["names"] = _names(doc)
    data["bots"] = bot_list(doc.get("bots") or {})
    data["table"]["options"]["turn_seconds"] = doc.get("turn_seconds")
    current = doc["deals"].get(str(table.hand_number))
    if data["hand"] is not None:
        data["hand"]["hand_id"] = hand_id(doc["id"], table.hand_number)
        data["hand"]["deck_commitment"] = current["commitment"] if current else None
        data["hand"]["turn_deadline_at"] = clock.turn_deadline(doc)
    if table.options.chosen_inauguration:  # the clock of the seat to inaugurate (no hand to carry it)
        data["table"]["inauguration_deadline_at"] = clock.turn_deadline(doc) if table.inaugurations_pending else None
    data["table"]["last_deal"] = published(doc, table.hand_number - 1, table.last_result)
    data["table"]["draw_commitments"] = [{"round": d["round"], "seats": d["seats"], "commitment": d["commitment"]}
                                         for d in doc.get("draws", [])]
    return data


def ledger_view(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """Each seat's front, behind, cajas and balance, and every finished hand's result."""
    data = record_view(doc, version)
    return {"id": doc["id"], "version": version, "hands_played": len(doc["results"]),
            "seats": data["table"]["seats"], "results": doc["results"], "names": data["names"]}


def transcript_view(doc: dict[str, Any], version: int, entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The transcript of a stored table: every entry up to ``version``, the deck orders redacted by
    :func:`redact_entry` (withheld for the hand in progress), every finished hand's published deal."""
    current = doc["state"]["hand_number"]
    shown = []
    reshuffles: dict[int, int] = {}  # hand -> reshuffles seen so far
    records: dict[int, HandRecord | None] = {}  # finished hand -> its recorded result, once read
    for entry in entries:
        if entry["version"] > version:
            continue
        if entry["action"]["type"] in ("shuffle", "reshuffle") and entry["action"].get("order"):
            number = entry["hand"]
            k = 0
            if entry["action"]["type"] == "reshuffle":
                k = reshuffles[number] = reshuffles.get(number, 0) + 1
            if number < current and number not in records:
                records[number] = result_of(doc, number)
            entry = dict(entry, action=redact_entry(entry["action"], k, records.get(number)))
        shown.append(entry)
    deals = [d for n in range(1, current) if (d := published(doc, n, records.get(n))) is not None]
    return {"id": doc["id"], "kind": "gofo", "version": version,
            "options": doc["state"]["options"], "entries": shown, "deals": deals,
            "hands_finished": current - 1, "results": doc["results"],
            "turn_seconds": doc.get("turn_seconds"), "names": _names(doc)}


def _names(doc: dict[str, Any]) -> list[str | None]:
    """The players' names, by seat (the record's: ``None`` for a seat without one)."""
    return doc.get("names") or [None] * doc["state"]["options"]["seats"]


# ------------------------------------------------------------------ the answer to a move


def next_to_act(table: Table, caller: str | None) -> dict[str, Any]:
    """Who acts next at ``table`` and, when ``caller`` may see them, that seat's legal actions.

    ``caller``: ``host``, ``seat:N`` or ``None`` (nobody identified).  A seat sees the legal actions
    of the next seat only when it is that seat; at a tabletop table the host sees them too (the host's
    phone runs the real table, and nothing there is hidden from the referee's view: no card is
    tracked).  At a dealt table nobody else sees them: what a seat may do can depend on its hidden
    cards (which cards it may discard, whether it has looked at its own), so another seat's legal
    actions are never shown there, not even to the host.  ``legal_actions`` is ``None`` when not
    shown, ``seat`` ``None`` while chance moves (or before the first hand)."""
    seat = table.to_act()
    shown = seat is not None and (caller == f"seat:{seat}"
                                  or (caller == "host" and table.options.mode is Mode.TABLETOP))
    return {"seat": seat, "legal_actions": [a.to_dict() for a in table.legal_actions(seat)] if shown else None}


def move_answer(doc: dict[str, Any], version: int, seat: int | None, caller: str | None,
                table: Table | None = None) -> dict[str, Any]:
    """The answer to a move (or an enforced deadline) stored at ``version``: the view of ``seat``
    (``None``: the public view) plus ``next`` (:func:`next_to_act`) and ``hand_result``: the result of
    the hand this move ended, as ``table.last_result`` publishes it (``None`` when the hand goes on).
    Whether the move ended a hand is the referee's record (``doc["hand_ended_at"]``: the version of
    the move that ended the last finished hand)."""
    if table is None:
        table = Table.from_dict(doc["state"])
    data = record_view(doc, version, seat, table)
    data["next"] = next_to_act(table, caller)
    ended = doc.get("hand_ended_at") == version
    data["hand_result"] = data["table"]["last_result"] if ended else None
    return data
