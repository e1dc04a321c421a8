"""The offline verifier of a Gofo transcript: :func:`verify_gofo` (``python -m service.verify``).

Deck commitments (Gofo)
-----------------------
A Gofo table never ends: its transcript opens the deck commitment of every
*finished* hand in ``deals`` (the hand in progress is withheld) and the checker
replays exactly those hands.  A deal publishes one salted leaf per deck
position, the reshuffle key and its hash, and opens (position, card, salt) only
for the cards the hand made public; the other positions stay closed, so a
folded hand is never shown.  The leaves and key hash must hash to the deal's
``commitment`` (and to ``--deck-commitment HAND=HEX``, the commitment the
players saw before the deal: a rewritten deal could carry a rewritten
commitment), every opening must open its leaf, and the openings must be exactly
the public cards of the recorded result.  Closed positions are filled with the
unseen cards in canonical order for the replay: they never appear in a public
action, so the public outcome must still be reproduced exactly.  Reshuffles are
derived from the committed key and recomputed here; one whose pile holds hidden
cards is only partly checkable.
"""

from __future__ import annotations

import copy
from typing import Any

from service.games import commitments
from service.games.gofo.rules import Mode, Phase
from service.games.verification import (
    Report, _short, _is_int, _is_number, _diff, _check_version_coverage, _differing_keys, _first_difference,
)


# Chance inputs the referee supplies (``reshuffle`` only at a dealt table: at a tabletop table the
# dealer reports that the real pile was reshuffled, a seat action without an order).
_GOFO_CHANCE = ("dealer_draw", "shuffle", "reshuffle")


def _gofo_where(index: int, entry: Any) -> str:
    """``entry #5 (version 4, hand 2, seat 3 open)`` — how Gofo problems name an entry."""
    if not isinstance(entry, dict):
        return f"entry #{index}"
    action = entry.get("action")
    kind = action.get("type") if isinstance(action, dict) else "?"
    seat = entry.get("seat")
    who = f"seat {seat} " if _is_int(seat) else ""
    return f"entry #{index} (version {entry.get('version')}, hand {entry.get('hand')}, {who}{kind})"


def _is_gofo_chance(kind: str, mode: str) -> bool:
    return kind in ("dealer_draw", "shuffle") or (kind == "reshuffle" and mode != Mode.TABLETOP)


def _check_gofo_by(report: Report, where: str, entry: dict[str, Any], seats: int, mode: str) -> None:
    """Who made the entry (``by``) and for which seat the engine applied it (``seat``).

    A seat's move is made by that seat, by the host at a tabletop table, or by the referee when the
    seat's time ran out (``timeout: true``; the move itself is checked in the replay)."""
    by, seat, kind = entry.get("by"), entry.get("seat"), entry["action"]["type"]
    timeout = entry.get("timeout", False)
    if kind == "create":
        return  # the first entry is checked on its own; a second one is reported there
    if _is_gofo_chance(kind, mode):
        if by != "referee":
            report.problem(f"{where}: made by {by!r}, but only the referee supplies chance ({kind})")
        if seat is not None:
            report.problem(f"{where}: recorded for seat {seat!r}, but chance ({kind}) is applied for no seat (null)")
        if timeout is not False:
            report.problem(f"{where}: marked timeout {timeout!r}, but chance ({kind}) is nobody's turn")
        return
    if not _is_int(seat) or not 0 <= seat < seats:
        report.problem(f"{where}: seat {seat!r} is not a seat of this {seats}-seat table")
        return
    if timeout is True:
        if by != "referee":
            report.problem(f"{where}: marked as a timeout, but made by {by!r}; only the referee moves a seat "
                           "whose time ran out")
        return
    if timeout is not False:
        report.problem(f"{where}: timeout is {timeout!r}, not true or absent")
    if by == f"seat:{seat}":
        return
    if by == "host":
        if mode != Mode.TABLETOP:
            report.problem(f"{where}: made by 'host', but at a dealt table the host cannot act for a seat "
                           f"(a {kind} for seat {seat} can only be made by 'seat:{seat}')")
        return
    also = " or the host" if mode == Mode.TABLETOP else ""
    referee = " (the referee moves a seat only when its time ran out, marked timeout)" if by == "referee" else ""
    report.problem(f"{where}: made by {by!r}, but a {kind} for seat {seat} can only be made by "
                   f"'seat:{seat}'{also}{referee}")


def _gofo_deals(report: Report, tid: str, deals: Any, finished: int, mode: str,
                given: dict[int, str]) -> dict[int, dict[str, Any]]:
    """Check ``deals`` on their own: one per finished hand; the 28 leaves and the reshuffle key hash
    hash to the commitment; the reshuffle key leaves hash to the key hash; every opening opens its
    leaf and every revealed key its key leaf.  Return hand number -> deal (``openings`` as position ->
    card and ``keys`` as reshuffle number -> key, the good ones only) for the replay."""
    from service.games.gofo.cards import DECK, is_card
    from service.games.gofo.chance import MAX_RESHUFFLES

    usable: dict[int, dict[str, Any]] = {}
    if not isinstance(deals, list) or not all(isinstance(d, dict) for d in deals):
        report.problem("deals: missing or not a list of deal objects")
        return usable
    if mode == Mode.TABLETOP:
        if deals:
            report.problem(f"deals: a tabletop table is played with real cards, but the transcript lists "
                           f"{len(deals)} dealt deck{'s' if len(deals) != 1 else ''}")
        for number in sorted(given):
            report.problem(f"--deck-commitment {number}=…: a tabletop table has no dealt deck to check")
        return usable
    if len(deals) != finished:
        report.problem(f"deals: the transcript lists {len(deals)} deal{'s' if len(deals) != 1 else ''} but "
                       f"{finished} finished hand{'s' if finished != 1 else ''} (hands_finished); every finished "
                       "hand's deck commitment is opened there")
    digest = commitments.COMMITMENT_PATTERN.match
    for index, deal in enumerate(deals):
        number = index + 1
        where = f"deals[{index}]"
        if deal.get("hand") != number:
            report.problem(f"{where}: is for hand {deal.get('hand')!r}, expected hand {number} "
                           "(deals are listed in hand order, one per finished hand)")
            continue
        hid = f"{tid}-{number}"
        if deal.get("hand_id") != hid:
            report.problem(f"{where}: hand_id is {deal.get('hand_id')!r}, but hand {number} of table {tid} "
                           f"hashes with the hand id {hid!r}")
        if "order" in deal or "salt" in deal or "reshuffle_key" in deal or "reshuffles" in deal:
            report.problem(f"{where}: carries a whole deck order, deck salt, reshuffle key or reshuffle orders "
                           "(order/salt/reshuffle_key/reshuffles, the old formats); a finished hand opens only what "
                           "service.games.gofo.deal allows, or a folded hand would be shown")
        leaves, key_leaves, key_hash = deal.get("leaves"), deal.get("reshuffle_key_leaves"), deal.get("reshuffle_key_hash")
        if not isinstance(leaves, list) or len(leaves) != len(DECK) \
                or not all(isinstance(x, str) and digest(x) for x in leaves):
            report.problem(f"{where}: leaves is not a list of {len(DECK)} SHA-256 digests (64 lowercase hex), one "
                           f"per deck position of hand {number}")
            continue
        if not isinstance(key_hash, str) or not digest(key_hash):
            report.problem(f"{where}: reshuffle_key_hash {_short(key_hash)!r} is not a SHA-256 digest "
                           "(64 lowercase hex)")
            continue
        if not isinstance(key_leaves, list) or len(key_leaves) != MAX_RESHUFFLES \
                or not all(isinstance(x, str) and digest(x) for x in key_leaves):
            report.problem(f"{where}: reshuffle_key_leaves is not a list of {MAX_RESHUFFLES} SHA-256 digests, one "
                           f"per possible reshuffle of hand {number}")
            continue
        leaves_hash = commitments.reshuffle_key_hash(hid, key_leaves)
        if not commitments.matches(leaves_hash, key_hash):
            report.problem(f"{where}: the reshuffle key leaves of hand {number} hash to {_short(leaves_hash)}, not to "
                           f"the committed reshuffle_key_hash {_short(key_hash)}")
        actual = commitments.deck_commitment(hid, leaves, key_hash)
        published: list[tuple[str, Any]] = [(f"deals[{index}].commitment", deal.get("commitment"))]
        if number in given:
            published.append((f"--deck-commitment {number}", given[number]))
        for source, expected in published:
            if not isinstance(expected, str) or not digest(expected) or not commitments.matches(actual, expected):
                report.problem(
                    f"{where}: the leaves and reshuffle key hash of hand {number} hash to {_short(actual)}, "
                    f"which does not match the deck commitment {_short(expected)} published for hand {hid} "
                    f"({source})")
        openings: dict[int, str] = {}
        raw = deal.get("openings")
        if not isinstance(raw, list):
            report.problem(f"{where}: openings is not a list of {{position, card, salt}}")
            raw = []
        for i, opening in enumerate(raw):
            at = f"{where}.openings[{i}]"
            pos, card, salt = (opening.get(k) for k in ("position", "card", "salt")) \
                if isinstance(opening, dict) else (None, None, None)
            if not (_is_int(pos) and 0 <= pos < len(DECK) and is_card(card) and isinstance(salt, str)
                    and commitments.SALT_PATTERN.match(salt)):
                report.problem(f"{at}: not an opening (a position 0..{len(DECK) - 1}, a card of the deck and a "
                               "64-hex salt)")
                continue
            if pos in openings:
                report.problem(f"{at}: opens position {pos} a second time")
                continue
            if card in openings.values():
                report.problem(f"{at}: opens {card} a second time (position {pos}); each card is at one position")
                continue
            leaf = commitments.card_leaf(hid, pos, card, salt)
            if not commitments.matches(leaf, leaves[pos]):
                report.problem(f"{at}: {card} at position {pos} with salt {_short(salt)} hashes to {_short(leaf)}, "
                               f"not to the committed leaf {_short(leaves[pos])} (leaves[{pos}]): the position does "
                               "not open")
                continue
            openings[pos] = card
        keys: dict[int, str] = {}
        raw = deal.get("reshuffle_keys")
        if not isinstance(raw, list):
            report.problem(f"{where}: reshuffle_keys is not a list of {{number, key}}")
            raw = []
        for i, item in enumerate(raw):
            at = f"{where}.reshuffle_keys[{i}]"
            k, key = (item.get("number"), item.get("key")) if isinstance(item, dict) else (None, None)
            if not (_is_int(k) and 1 <= k <= MAX_RESHUFFLES and isinstance(key, str)
                    and commitments.SALT_PATTERN.match(key)) or k in keys:
                report.problem(f"{at}: not a reshuffle key (a number 1..{MAX_RESHUFFLES}, once, and 64 lowercase hex)")
                continue
            leaf = commitments.reshuffle_key_leaf(hid, k, key)
            if not commitments.matches(leaf, key_leaves[k - 1]):
                report.problem(f"{at}: the key of reshuffle {k} of hand {number} hashes to {_short(leaf)}, not to "
                               f"the committed reshuffle_key_leaves[{k - 1}] {_short(key_leaves[k - 1])}")
                continue
            keys[k] = key
        usable[number] = {"hand_id": hid, "openings": openings, "keys": keys, "where": where}
    for number in sorted(n for n in given if not 1 <= n <= finished):
        report.problem(f"--deck-commitment {number}=…: hand {number} is not a finished hand of this transcript "
                       f"({finished} finished); only a finished hand's deck is revealed")
    return usable


def _gofo_openings_match_results(report: Report, deals: dict[int, dict[str, Any]],
                                 recorded: list[dict[str, Any]] | None) -> None:
    """Exactly what ``service.games.gofo.deal`` allows is opened, judged from the recorded result (the
    table's public record): every card first shown by a seat that never drew from a tainted
    reshuffle, and the keys of the reshuffles nobody's secret went through — nothing unchecked that
    could be checked, nothing that would tell a folded hand."""
    from service.games.gofo import observer
    from service.games.gofo.cards import is_card, sort_cards

    by_hand = {r.get("hand"): r for r in recorded or [] if _is_int(r.get("hand"))}
    for number, deal in sorted(deals.items()):
        result = by_hand.get(number)
        try:
            expected = observer.opened_cards(result)
            revealed = set(observer.revealed_reshuffles(result))
        except (AttributeError, TypeError, KeyError, IndexError):
            continue  # no usable result for the hand: reported with the results
        opened = set(deal["openings"].values())
        unopened = sort_cards(c for c in expected - opened if is_card(c))
        if unopened:
            report.problem(f"{deal['where']}: hand {number} first showed {unopened} from the deck (results), but "
                           f"{'they are' if len(unopened) != 1 else 'it is'} not opened: where "
                           f"{'they' if len(unopened) != 1 else 'it'} lay in the deck would go unchecked")
        leaked = sort_cards(c for c in opened - expected if is_card(c))
        if leaked:
            report.problem(f"{deal['where']}: opens {leaked}, which hand {number} must keep closed (not shown, or "
                           "shown by a seat that drew from a pile holding a folded hand): the referee must not "
                           "tell a folded or unshown hand")
        keys = set(deal["keys"])
        if revealed - keys:
            report.problem(f"{deal['where']}: the key of reshuffle{'s' if len(revealed - keys) != 1 else ''} "
                           f"{sorted(revealed - keys)} of hand {number} is not revealed, though nothing secret went "
                           "through it")
        if keys - revealed:
            report.problem(f"{deal['where']}: reveals the key of reshuffle{'s' if len(keys - revealed) != 1 else ''} "
                           f"{sorted(keys - revealed)} of hand {number}, which must stay closed (its pile held a "
                           "folded hand, or a seat that drew from it never showed)")


class _Unseen:
    """Stand-ins for the cards a finished dealt hand kept closed, so the engine can replay it.

    A closed deck position, and every slot of a closed reshuffle, holds a stand-in (``?n``) from a
    pool of cards it may be: the deck's unopened cards, or a closed reshuffle's pile.  When a public
    action needs a card (a discard names it, the canto shows it), the acting seat's stand-in becomes
    that card — if the card is not placed elsewhere and is in the stand-in's pool.  The replay so
    checks every opened card where it was dealt and every public action against the commitment, and
    accepts any placing of the closed ones (what cannot be checked without telling a folded hand)."""

    def __init__(self) -> None:
        self.count = 0
        self.group: dict[str, int] = {}
        self.pools: list[set[str]] = []
        self.unplaced: set[str] = set()

    def _new(self, pool: int) -> str:
        self.count += 1
        name = f"?{self.count}"
        self.group[name] = pool
        return name

    def after_shuffle(self, hand: Any, opened: set[str]) -> None:
        """Every card the shuffle put in the stock or the hands but did not open becomes a stand-in."""
        self.pools.append(set(c for c in hand.stock + [c for h in hand.hands for c in h] if c not in opened))
        self.unplaced |= self.pools[-1]
        pool = len(self.pools) - 1
        swap = {c: self._new(pool) for c in self.pools[-1]}
        hand.stock = [swap.get(c, c) for c in hand.stock]
        hand.hands = [[swap.get(c, c) for c in h] for h in hand.hands]

    def closed_reshuffle(self, hand: Any) -> None:
        """A closed reshuffle: nothing is known of where its pile's cards went."""
        real = {c for c in hand.pile if c not in self.group}
        pool = set(real)
        for c in hand.pile:
            if c in self.group:
                pool |= self.pools[self.group[c]]
        self.pools.append(pool)
        self.unplaced |= real
        index = len(self.pools) - 1
        pile = []
        for c in hand.pile:
            if c in self.group:
                self.group[c] = index
                pile.append(c)
            else:
                pile.append(self._new(index))
        hand.pile = pile

    def place(self, spot: list[str], i: int, card: str) -> str | None:
        """Make the stand-in at ``spot[i]`` the card; why not, or ``None``."""
        stand_in = spot[i]
        if stand_in not in self.group:
            return f"where it would be, {stand_in} already is"
        if card not in self.unplaced:
            return "it is already placed elsewhere in the replay (opened at another deck position, or shown)"
        if card not in self.pools[self.group[stand_in]]:
            return "no unseen card that can be it is there"
        spot[i] = card
        del self.group[stand_in]
        self.unplaced.discard(card)
        return None

    def hold(self, hand: Any, seat: int, cards: list[str]) -> str | None:
        """Make sure ``seat`` holds ``cards`` (placing them in its stand-ins); why not, or ``None``."""
        mine = hand.hands[seat]
        for card in cards:
            if card in mine:
                continue
            slots = [i for i, c in enumerate(mine) if c in self.group and card in self.pools[self.group[c]]]
            if not slots:
                return (f"seat {seat} cannot hold {card}: "
                        + ("it is already placed elsewhere in the replay (opened at another deck position, or shown)"
                           if card not in self.unplaced else "none of its unseen cards can be it"))
            problem = self.place(mine, slots[0], card)
            if problem:
                return f"seat {seat} cannot hold {card}: {problem}"
        return None

    def final_draw(self, hand: Any, seat: int, discarded: list[str], shown: list[str]) -> list[str]:
        """Before ``seat``'s final discard: place the cards it must show at the canto in the cards it
        keeps and the stock cards it is about to draw.  Returns what must come from a reshuffle."""
        mine = hand.hands[seat]
        keep = [i for i, c in enumerate(mine) if c not in discarded]
        t = min(len(discarded), len(hand.stock))
        have = {mine[i] for i in keep if mine[i] not in self.group} | {c for c in hand.stock[:t] if c not in self.group}
        need = [c for c in shown if c not in have]
        spots = [(mine, i) for i in keep if mine[i] in self.group] + \
            [(hand.stock, i) for i in range(t) if hand.stock[i] in self.group]
        rest = []
        for card in need:
            for n, (spot, i) in enumerate(spots):
                if card in self.unplaced and card in self.pools[self.group[spot[i]]]:
                    self.place(spot, i, card)
                    spots.pop(n)
                    break
            else:
                rest.append(card)
        return rest


def _gofo_shuffle_order(report: Report, where: str, number: int, masked: Any,
                        deal: dict[str, Any]) -> tuple[list[str], set[str]]:
    """Check a finished hand's shuffle entry against the deal's openings (each opened card at its
    position, null elsewhere; null as a whole when nothing opened) and fill it in for the engine; the
    closed cards become stand-ins right after (``_Unseen.after_shuffle``)."""
    from service.games.gofo.cards import DECK

    openings = deal["openings"]
    expected = [openings.get(i) for i in range(len(DECK))]
    if masked is None:
        if openings:
            report.problem(f"{where}: the shuffle order is withheld (null), but hand {number} is finished and "
                           f"{deal['where']} opens {len(openings)} position{'s' if len(openings) != 1 else ''}; "
                           "the shuffle entry must show the cards there")
    elif not isinstance(masked, list) or len(masked) != len(DECK):
        report.problem(f"{where}: the shuffle order is not a list of {len(DECK)} positions (a card or null each)")
    elif masked != expected:
        report.problem(
            f"{where}: the shuffle of hand {number} shows the deck as {_short(masked, 40)}, not the positions "
            f"opened in {deal['where']} (each opened card at its position, null elsewhere; "
            f"{_first_difference(masked, expected)})")
    public = set(openings.values())
    closed = iter(c for c in DECK if c not in public)
    return [openings[i] if i in openings else next(closed) for i in range(len(DECK))], public


def _gofo_reshuffle_order(report: Report, where: str, number: int, k: int, masked: Any, deal: dict[str, Any],
                          hand: Any, unseen: "_Unseen", carries: dict[int, list[str]],
                          tally: dict[str, int]) -> list[str] | None:
    """The order to replay a finished hand's ``k``-th reshuffle with.  Revealed (its key is in the
    deal): the pile must hold only known cards, and the entry must show exactly the order derived from
    the key.  Closed: the entry shows ``null`` and the pile's cards become stand-ins (the drawer's
    cards for the canto, if any, go on top).  ``None`` when the replay cannot go on."""
    from service.games.gofo.cards import sort_cards

    if hand is None or hand.phase is not Phase.RESHUFFLE or hand.pending_draw is None:
        report.problem(f"{where}: a reshuffle, but replaying the entries before it, hand {number} needs no "
                       "reshuffle here (the stock did not run out)")
        return None
    key = deal["keys"].get(k)
    if key is not None:
        hidden = [c for c in hand.pile if c in unseen.group]
        if hidden:
            report.problem(f"{where}: the key of reshuffle {k} of hand {number} is revealed, but its pile holds "
                           f"{len(hidden)} card{'s' if len(hidden) != 1 else ''} the hand kept closed")
            return None
        seed = commitments.reshuffle_seed(deal["hand_id"], k, key)
        expected = commitments.derived_shuffle(seed, sort_cards(hand.pile))
        if masked != expected:
            report.problem(f"{where}: reshuffle {k} of hand {number} orders the pile as {_short(masked, 40)}, but the "
                           f"order derived from its revealed key (reshuffle_seed({deal['hand_id']}, {k}, key)) over "
                           f"the pile {sort_cards(hand.pile)} is {expected}")
        tally["derived"] += 1
        return expected
    if masked is not None:
        report.problem(f"{where}: reshuffle {k} of hand {number} is kept closed (its key is not revealed), but its "
                       "entry shows an order; a closed reshuffle's order is null (it would tell who drew which card)")
    unseen.closed_reshuffle(hand)
    order = list(hand.pile)
    for i, card in enumerate(carries.pop(hand.pending_draw.seat, [])[:hand.pending_draw.count]):
        unseen.place(order, i, card)
    hand.pile = list(order)
    tally["closed"] += 1
    return order


def verify_gofo(transcript: dict[str, Any], deck_commitments: dict[int, str] | None = None) -> Report:
    """Check a Gofo transcript: every finished hand is replayed and checked against ``deals`` and
    ``results``.  The hand in progress is only checked for its envelope and who made each entry at a
    dealt table (its deck order is withheld); at a tabletop table it is replayed as far as it goes."""
    from service.errors import RefereeError
    from service.games.gofo import chance as chance_rules, clock
    from service.games.gofo.actions import action_from_dict, action_to_dict
    from service.games.gofo.rules import TableOptions
    from service.games.gofo.table import Table

    tid = transcript.get("id")
    report = Report("gofo", str(tid))
    given = dict(deck_commitments or {})

    # ---- the envelope
    if not isinstance(tid, str) or not commitments.ID_PATTERN.match(tid):
        report.problem(f"id: {tid!r} is not a table id ([A-Za-z0-9_-], 1..64 characters)")
        return report
    entries = transcript.get("entries")
    if not isinstance(entries, list) or not entries:
        report.problem("entries: missing or empty; a transcript starts with the create entry")
        return report
    top_version = transcript.get("version")
    if not _is_int(top_version):
        report.problem(f"version: {top_version!r} is not an integer")
    finished = transcript.get("hands_finished")
    if not _is_int(finished) or finished < 0:
        report.problem(f"hands_finished: {finished!r} is not a number of hands (an integer ≥ 0)")
        return report
    if finished > len(entries):
        report.problem(f"hands_finished: {finished} hands cannot have been played in {len(entries)} entries")
        return report
    first = entries[0]
    if not isinstance(first, dict) or not isinstance(first.get("action"), dict) \
            or first["action"].get("type") != "create":
        report.problem(f"{_gofo_where(1, first)}: the first entry must be the create entry")
        return report
    options = first["action"].get("options")
    if not isinstance(options, dict):
        report.problem(f"{_gofo_where(1, first)}: the create entry has no options object")
        return report
    if options != transcript.get("options"):
        report.problem(f"options: the transcript's options differ from those of the create entry "
                       f"({_differing_keys(transcript.get('options'), options)})")
    try:
        parsed_options = TableOptions.from_dict(options)
    except (RefereeError, TypeError, ValueError, AttributeError) as exc:
        report.problem(f"{_gofo_where(1, first)}: the options are not valid Gofo table options: {exc}")
        return report
    if parsed_options.to_dict() != options:
        report.problem(f"{_gofo_where(1, first)}: the options are not written out in full as the referee "
                       f"records them ({_differing_keys(options, parsed_options.to_dict())})")
    mode, seats = parsed_options.mode, parsed_options.seats
    if first.get("by") != "host" or first.get("seat") is not None or first.get("hand") != 0:
        report.problem(f"{_gofo_where(1, first)}: the create entry is made by the host, for no seat, before "
                       f"hand 1 (by {first.get('by')!r}, seat {first.get('seat')!r}, hand {first.get('hand')!r})")

    # ---- every entry's shape, version order, time order and author
    shaped: list[tuple[int, dict[str, Any]]] = []
    previous_version, previous_at = 0, None
    for index, entry in enumerate(entries, 1):
        where = _gofo_where(index, entry)
        if not isinstance(entry, dict) or not isinstance(entry.get("action"), dict) \
                or not isinstance(entry["action"].get("type"), str):
            report.problem(f"{where}: not an entry object with an action and its type")
            continue
        bad = [k for k in ("version", "hand") if not _is_int(entry.get(k))]
        if not _is_number(entry.get("at")):
            bad.append("at")
        if not isinstance(entry.get("by"), str):
            bad.append("by")
        if "seat" not in entry or not (entry["seat"] is None or _is_int(entry["seat"])):
            bad.append("seat")
        if bad:
            report.problem(f"{where}: missing or malformed {', '.join(bad)}")
            continue
        version, at, kind = entry["version"], entry["at"], entry["action"]["type"]
        chance = _is_gofo_chance(kind, mode)
        if index == 1 and version != 1:
            report.problem(f"{where}: the first entry must be version 1")
        if version < previous_version:
            report.problem(f"{where}: version {version} comes after version {previous_version} "
                           "(entries are out of order)")
        elif version == previous_version and not chance:
            report.problem(
                f"{where}: repeats version {version}; only the referee's chance (draw, shuffle, reshuffle) "
                "shares the version of the request that needed it (an entry was duplicated)")
        elif version > previous_version and chance and index > 1:
            report.problem(
                f"{where}: the referee's {kind} has a version of its own ({version}); chance is supplied in the "
                f"request that needed it, with its version ({previous_version})")
        if previous_at is not None and at < previous_at:
            report.problem(f"{where}: at {at} is earlier than the previous entry's {previous_at} "
                           "(time goes backwards)")
        if index > 1 and kind == "create":
            report.problem(f"{where}: a second create entry")
        elif index > 1:
            _check_gofo_by(report, where, entry, seats, mode)
        previous_version, previous_at = version, at
        shaped.append((index, entry))
    _check_version_coverage(report, shaped, top_version)

    # ---- the revealed decks, on their own
    deals = _gofo_deals(report, tid, transcript.get("deals"), finished, mode, given)
    recorded = transcript.get("results")
    if not isinstance(recorded, list) or not all(isinstance(r, dict) for r in recorded):
        report.problem("results: missing or not a list of hand results")
        recorded = None
    else:
        numbers = [r.get("hand") for r in recorded]
        if numbers != list(range(1, finished + 1)):
            missing = sorted(set(range(1, finished + 1)) - set(n for n in numbers if _is_int(n)))
            report.problem(
                f"results: the transcript lists {len(recorded)} hand result{'s' if len(recorded) != 1 else ''} "
                f"(for hands {numbers}) but {finished} finished hand{'s' if finished != 1 else ''} (hands_finished); "
                + (f"no result for hand{'s' if len(missing) != 1 else ''} {', '.join(map(str, missing))}"
                   if missing else "one result per finished hand, in order"))
    _gofo_openings_match_results(report, deals, recorded)

    # ---- replay every finished hand
    table = Table.new(parsed_options)
    total_chips = sum(table.cajas) * parsed_options.caja  # a resumed session starts with its own ledger
    replayed_results: list[dict[str, Any]] = []
    tally = {"derived": 0, "closed": 0}  # reshuffles recomputed from their revealed key / kept closed
    reshuffle_count: dict[int, int] = {}
    shown_by_hand = {r.get("hand"): r.get("shown") for r in recorded or [] if isinstance(r, dict)}
    unseen = _Unseen()
    carries: dict[int, list[str]] = {}  # seat -> cards it must still draw for the canto (after a reshuffle)
    relabel: set[str] | None = None
    turn_seconds = transcript.get("turn_seconds")
    if turn_seconds is not None and (not _is_int(turn_seconds) or turn_seconds < 1):
        report.problem(f"turn_seconds: {turn_seconds!r} is not a number of seconds (an integer ≥ 1, or null)")
        turn_seconds = None
    clock_since = first.get("at") if _is_number(first.get("at")) else 0.0
    last_move: tuple[float, tuple, Any] | None = None  # (at, turn marker before, action) of the last seat move
    draw_rounds = 0
    replay_ok = bool(shaped) and shaped[0][0] == 1
    position = 1  # index into ``shaped`` of the next entry to apply
    # A tabletop hand in progress hides nothing: it is replayed too (no result to compare yet); nor do
    # the choices of the seats inaugurating new cajas before the next hand (they come before its deal).
    while replay_ok and position < len(shaped) and (table.hand_number <= finished or mode == Mode.TABLETOP
                                                    or table.inaugurations_pending):
        index, entry = shaped[position]
        position += 1
        where = _gofo_where(index, entry)
        action = entry["action"]
        kind = action["type"]
        number = table.hand_number
        if entry["hand"] != number:
            report.problem(f"{where}: recorded for hand {entry['hand']}, but replaying the entries before it, "
                           f"the table is at hand {number}")
        chance = _is_gofo_chance(kind, mode)
        seat = None if chance else entry["seat"]
        deal = deals.get(number)
        if kind == "dealer_draw" and chance:
            draw_rounds += 1
            draw = entry.get("draw")
            if not isinstance(draw, dict):
                report.problem(f"{where}: the first-dealer draw shows no committed draw deck (draw: round, "
                               "commitment, order, salt); every draw is made from a committed deck")
            else:
                why = chance_rules.draw_checks_out(tid, draw, list(action.get("cards") or [])) \
                    if draw.get("round") == draw_rounds else f"it is numbered round {draw.get('round')!r}, not {draw_rounds}"
                if why:
                    report.problem(f"{where}: draw round {draw_rounds} does not check out: {why}")
        if kind in ("shuffle", "reshuffle") and chance:
            if deal is None:
                report.problem(f"{where}: hand {number} is finished (hands_finished {finished}), but deals has no "
                               f"usable deal for it: its closed positions cannot be filled in, so the hand cannot "
                               "be replayed")
                replay_ok = False
                break
            if kind == "shuffle":
                order, relabel = _gofo_shuffle_order(report, where, number, action.get("order"), deal)
                unseen, carries = _Unseen(), {}
            else:
                k = reshuffle_count[number] = reshuffle_count.get(number, 0) + 1
                order = _gofo_reshuffle_order(report, where, number, k, action.get("order"), deal, table.hand,
                                              unseen, carries, tally)
            if order is None:
                replay_ok = False
                break
            action = dict(action, order=order)
        if not chance:
            if last_move is not None and clock.restarts_clock(last_move[2], last_move[1], clock.turn_marker(table)):
                clock_since = last_move[0]
            if entry.get("timeout") is True:
                silent = table.default_action(seat) if _is_int(seat) else None
                if silent is None:
                    report.problem(f"{where}: marked as a timeout, but seat {seat} cannot be moved by the deadline "
                                   f"now (it is seat {table.to_act()}'s turn)")
                else:
                    try:
                        made = action_to_dict(action_from_dict(action))
                    except RefereeError:
                        made = action
                    if made != action_to_dict(silent):
                        report.problem(f"{where}: the referee's timeout move for seat {seat} is {made}, but a silent "
                                       f"seat makes {action_to_dict(silent)}")
                due = clock.deadline(clock_since, turn_seconds)
                if due is None:
                    report.problem(f"{where}: marked as a timeout, but the table has no turn deadline (turn_seconds)")
                elif entry["at"] < due:
                    report.problem(f"{where}: the referee moved seat {seat} at {entry['at']}, before its deadline "
                                   f"{due} ({turn_seconds} s after the move at {clock_since})")
            try:
                last_move = (entry["at"], clock.turn_marker(table), action_from_dict(action))
            except RefereeError:
                last_move = None
        if kind == "discard" and mode is not Mode.TABLETOP and table.hand is not None and table.hand.phase is Phase.DISCARD \
                and table.to_act() == seat and isinstance(action.get("cards"), list) \
                and all(isinstance(c, str) for c in action["cards"]):
            why = unseen.hold(table.hand, seat, action["cards"])
            if why:
                report.problem(f"{where}: {why}")
                replay_ok = False
                break
            shown = shown_by_hand.get(number)
            if table.hand.final_discard and isinstance(shown, list) and 0 <= seat < len(shown) \
                    and isinstance(shown[seat], list) and all(isinstance(c, str) for c in shown[seat]):
                carries[seat] = unseen.final_draw(table.hand, seat, action["cards"], shown[seat])
        try:
            table.apply(action_from_dict(action), seat=seat)
        except RefereeError as exc:
            report.problem(f"{where}: the rules engine refuses this action: {exc} ({exc.code})")
            replay_ok = False
            break
        except Exception as exc:  # noqa: BLE001 — a malformed field the engine did not expect: still a refusal
            report.problem(f"{where}: the rules engine cannot apply this action: {type(exc).__name__}: {exc}")
            replay_ok = False
            break
        if relabel is not None and kind == "shuffle":
            unseen.after_shuffle(table.hand, relabel)
            relabel = None
        if table.hand_number != number and number >= 1:
            result = copy.deepcopy(table.last_result)
            replayed_results.append(result)
            chips = sum(table.fronts) + sum(table.behinds)
            if chips != sum(table.cajas) * parsed_options.caja or sum(result["net"]) != 0 \
                    or sum(result["payouts"]) != sum(p["amount"] for p in result["pots"]):
                report.problem(f"hand {number}: chips are not conserved in the replay ({chips} chips at the table "
                               f"for {sum(table.cajas)} cajas of {parsed_options.caja}, net {result['net']})")
            total_chips = chips
        # When the engine needs chance, the very next entry is the referee's, with the same version.
        needed = table.chance_request() if table.to_act() is None else None
        if needed is not None:
            nxt = shaped[position][1] if position < len(shaped) else None
            if not (nxt and nxt["action"]["type"] == needed["kind"] and nxt["version"] == entry["version"]
                    and _is_gofo_chance(nxt["action"]["type"], mode)):
                report.problem(
                    f"{where}: after it hand {table.hand_number} needs the referee's {needed['kind']}, but the "
                    f"next entry is not that {needed['kind']} (it was dropped or moved)")
                replay_ok = False
                break
    if bad_ledger := _ledger_mismatch(table):
        report.problem(bad_ledger)
    if replay_ok and table.hand_number <= finished:
        report.problem(f"replaying every entry finishes {table.hand_number - 1 if table.hand_number else 0} "
                       f"hand{'s' if table.hand_number != 2 else ''}, but hands_finished is {finished}: "
                       "entries are missing at the end")
        replay_ok = False
    elif replay_ok and table.hand_number > finished + 1:
        report.problem(f"replaying every entry finishes {table.hand_number - 1} hands, but hands_finished is "
                       f"{finished}: the hand in progress is over")

    # ---- the hand in progress: not replayable (its deck is withheld), but it must be that hand's
    if replay_ok:
        for index, entry in shaped[position:]:
            if entry["hand"] != finished + 1:
                report.problem(
                    f"{_gofo_where(index, entry)}: recorded for hand {entry['hand']}, but after the {finished} "
                    f"finished hand{'s' if finished != 1 else ''} only hand {finished + 1} is in progress")
                break

    # ---- reshuffle keys revealed for reshuffles never made, the results
    for number, deal in sorted(deals.items()):
        made = reshuffle_count.get(number, 0)
        extra = sorted(k for k in deal["keys"] if k > made)
        if replay_ok and extra:
            report.problem(f"{deal['where']}: reveals the key of reshuffle{'s' if len(extra) != 1 else ''} {extra}, "
                           f"but hand {number} has {made} reshuffle entr{'ies' if made != 1 else 'y'}")
    if recorded is not None:
        by_hand: dict[int, tuple[int, dict[str, Any]]] = {}
        for i, mine in enumerate(recorded):
            by_hand.setdefault(mine["hand"] if _is_int(mine.get("hand")) else -1 - i, (i, mine))
        for number, theirs in enumerate(replayed_results, 1):
            if number not in by_hand:
                continue  # reported above
            i, mine = by_hand[number]
            lines: list[str] = []
            _diff(f"results[{i}]", mine, theirs, lines)
            for line in lines:
                report.problem(f"hand {number}: {line}")
        for i, mine in enumerate(recorded):
            pots = mine.get("pots")
            if isinstance(pots, list) and all(isinstance(p, dict) and _is_int(p.get("amount")) for p in pots) \
                    and isinstance(mine.get("payouts"), list) and all(_is_int(x) for x in mine["payouts"]) \
                    and sum(mine["payouts"]) != sum(p["amount"] for p in pots):
                report.problem(f"hand {mine.get('hand')}: results[{i}]: the payouts add up to "
                               f"{sum(mine['payouts'])} but the pots hold {sum(p['amount'] for p in pots)} "
                               "(chips are not conserved)")
            if isinstance(mine.get("net"), list) and all(_is_int(x) for x in mine["net"]) and sum(mine["net"]) != 0:
                report.problem(f"hand {mine.get('hand')}: results[{i}]: the nets add up to {sum(mine['net'])}, not 0 "
                               "(chips are not conserved)")

    if report.ok:
        balances = [table.balance(s) for s in range(seats)]
        dealt = len(deals)
        opened = sum(len(d["openings"]) for d in deals.values())
        closed = 28 * dealt - opened
        derived, kept_closed = tally["derived"], tally["closed"]
        report.summary = (
            f"gofo {tid}: {len(entries)} entries (version {top_version}), {seats} seats, {mode}; "
            f"{finished} finished hand{'s' if finished != 1 else ''} replayed"
            + (f"; {dealt} deck{'s match their' if dealt != 1 else ' matches its'} commitment"
               f"{'s' if dealt != 1 else ''}, {opened} public card{'s' if opened != 1 else ''} opened and "
               f"{closed} position{'s' if closed != 1 else ''} kept closed, {derived} reshuffle"
               f"{'s' if derived != 1 else ''} derived from the revealed keys"
               + (f", {kept_closed} reshuffle{'s' if kept_closed != 1 else ''} kept closed (a folded or unshown "
                  "hand went through it)" if kept_closed else "")
               if mode != Mode.TABLETOP else "")
            + f"; results reproduced, chips conserved ({total_chips} at the table), balances {balances}"
            + (f"; hand {finished + 1} in progress, replayed so far" if mode == Mode.TABLETOP
               else f"; hand {finished + 1} in progress, not checked (its deck is withheld)"
               if len(shaped) > position else "")
        )
    return report


def _ledger_mismatch(table: Any) -> str | None:
    """The table's ledger after the replay: every chip is in a front or behind."""
    chips = sum(table.fronts) + sum(table.behinds)
    if chips != sum(table.cajas) * table.options.caja:
        return (f"the replayed ledger holds {chips} chips for {sum(table.cajas)} cajas of {table.options.caja} "
                "(chips are not conserved)")
    return None



verify = verify_gofo  # the name every game's verifier has (service.games.contract)
