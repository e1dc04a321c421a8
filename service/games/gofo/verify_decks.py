"""The revealed decks of a Gofo transcript: each finished hand's deal against its deck commitment
(:func:`check_deals`), what it opens against what the hand made public (:func:`check_openings`),
and the shuffle and reshuffle entries against the deal, filled in for the replay
(:func:`shuffle_order`, :func:`reshuffle_order`)."""

from __future__ import annotations

from typing import Any

from service.games import commitments
from service.games.gofo import observer
from service.games.gofo.cards import DECK, is_card, sort_cards
from service.games.gofo.chance import MAX_RESHUFFLES
from service.games.gofo.records import HandRecord
from service.games.gofo.rules import Mode, Phase
from service.games.gofo.verify_unseen import Unseen
from service.games.verification import Report, _first_difference, _short


def check_deals(report: Report, tid: str, deals: list[dict[str, Any]], finished: int, mode: str,
                given: dict[int, str]) -> dict[int, dict[str, Any]]:
    """Check ``deals`` on their own (``docs/verify.md``, Deals), each loaded through the transcript's
    schema.  Return hand number -> deal (``openings`` as position -> card and ``keys`` as reshuffle
    number -> key, the good ones only)."""
    usable: dict[int, dict[str, Any]] = {}
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
    for index, deal in enumerate(deals):
        number, where = index + 1, f"deals[{index}]"
        if deal["hand"] != number:
            report.problem(f"{where}: is for hand {deal['hand']!r}, expected hand {number} "
                           "(deals are listed in hand order, one per finished hand)")
            continue
        hid = f"{tid}-{number}"
        if deal["hand_id"] != hid:
            report.problem(f"{where}: hand_id is {deal['hand_id']!r}, but hand {number} of table {tid} "
                           f"hashes with the hand id {hid!r}")
        if _check_commitment(report, where, hid, number, deal, given):
            usable[number] = {"hand_id": hid, "openings": _openings(report, where, hid, deal),
                              "keys": _reshuffle_keys(report, where, hid, number, deal), "where": where}
    for number in sorted(n for n in given if not 1 <= n <= finished):
        report.problem(f"--deck-commitment {number}=…: hand {number} is not a finished hand of this transcript "
                       f"({finished} finished); only a finished hand's deck is revealed")
    return usable


def _check_commitment(report: Report, where: str, hid: str, number: int, deal: dict[str, Any],
                      given: dict[int, str]) -> bool:
    """The deal's leaves and reshuffle key leaves hash to the deck commitment published before the
    hand (and to ``--deck-commitment``); False when they are not digests to hash at all."""
    digest = commitments.COMMITMENT_PATTERN.match
    leaves, key_leaves, key_hash = deal["leaves"], deal["reshuffle_key_leaves"], deal["reshuffle_key_hash"]
    if len(leaves) != len(DECK) or not all(digest(x) for x in leaves):
        report.problem(f"{where}: leaves is not a list of {len(DECK)} SHA-256 digests (64 lowercase hex), one "
                       f"per deck position of hand {number}")
        return False
    if not digest(key_hash):
        report.problem(f"{where}: reshuffle_key_hash {_short(key_hash)!r} is not a SHA-256 digest "
                       "(64 lowercase hex)")
        return False
    if len(key_leaves) != MAX_RESHUFFLES or not all(digest(x) for x in key_leaves):
        report.problem(f"{where}: reshuffle_key_leaves is not a list of {MAX_RESHUFFLES} SHA-256 digests, one "
                       f"per possible reshuffle of hand {number}")
        return False
    leaves_hash = commitments.reshuffle_key_hash(hid, key_leaves)
    if not commitments.matches(leaves_hash, key_hash):
        report.problem(f"{where}: the reshuffle key leaves of hand {number} hash to {_short(leaves_hash)}, not to "
                       f"the committed reshuffle_key_hash {_short(key_hash)}")
    actual = commitments.deck_commitment(hid, leaves, key_hash)
    published: list[tuple[str, Any]] = [(f"{where}.commitment", deal["commitment"])]
    if number in given:
        published.append((f"--deck-commitment {number}", given[number]))
    for source, expected in published:
        if not isinstance(expected, str) or not digest(expected) or not commitments.matches(actual, expected):
            report.problem(
                f"{where}: the leaves and reshuffle key hash of hand {number} hash to {_short(actual)}, "
                f"which does not match the deck commitment {_short(expected)} published for hand {hid} "
                f"({source})")
    return True


def _openings(report: Report, where: str, hid: str, deal: dict[str, Any]) -> dict[int, str]:
    """The positions the deal opens, position -> card: each a position of the deck, once, with a card
    once, whose leaf it opens."""
    openings: dict[int, str] = {}
    leaves = deal["leaves"]
    for i, opening in enumerate(deal["openings"]):
        at = f"{where}.openings[{i}]"
        pos, card, salt = opening["position"], opening["card"], opening["salt"]
        if not (0 <= pos < len(DECK) and commitments.SALT_PATTERN.match(salt)):
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
    return openings


def _reshuffle_keys(report: Report, where: str, hid: str, number: int, deal: dict[str, Any]) -> dict[int, str]:
    """The reshuffle keys the deal reveals, number -> key: each a reshuffle of the hand, once, whose
    committed leaf it opens."""
    keys: dict[int, str] = {}
    key_leaves = deal["reshuffle_key_leaves"]
    for i, item in enumerate(deal["reshuffle_keys"]):
        at = f"{where}.reshuffle_keys[{i}]"
        k, key = item["number"], item["key"]
        if not (1 <= k <= MAX_RESHUFFLES and commitments.SALT_PATTERN.match(key)) or k in keys:
            report.problem(f"{at}: not a reshuffle key (a number 1..{MAX_RESHUFFLES}, once, and 64 lowercase hex)")
            continue
        leaf = commitments.reshuffle_key_leaf(hid, k, key)
        if not commitments.matches(leaf, key_leaves[k - 1]):
            report.problem(f"{at}: the key of reshuffle {k} of hand {number} hashes to {_short(leaf)}, not to "
                           f"the committed reshuffle_key_leaves[{k - 1}] {_short(key_leaves[k - 1])}")
            continue
        keys[k] = key
    return keys


def check_openings(report: Report, deals: dict[int, dict[str, Any]],
                   results_by_hand: dict[int, dict[str, Any]]) -> None:
    """Exactly what ``service.games.gofo.deal`` allows is opened, judged from the recorded results:
    nothing unchecked that could be checked, nothing that would tell a folded hand."""
    for number, deal in sorted(deals.items()):
        try:
            result = HandRecord.from_dict(results_by_hand[number])
            expected = observer.opened_cards(result)
            revealed = set(observer.revealed_reshuffles(result))
        except (AttributeError, TypeError, KeyError, IndexError, ValueError):
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



def shuffle_order(report: Report, where: str, number: int, masked: Any,
                        deal: dict[str, Any]) -> tuple[list[str], set[str]]:
    """Check a finished hand's shuffle entry against the deal's openings (each opened card at its
    position, null elsewhere; null as a whole when nothing opened) and fill it in for the engine; the
    closed cards become stand-ins right after (``Unseen.after_shuffle``)."""
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


def reshuffle_order(report: Report, where: str, number: int, k: int, masked: Any, deal: dict[str, Any],
                    hand: Any, unseen: Unseen, carries: dict[int, list[str]]) -> list[str] | None:
    """The order to replay a finished hand's ``k``-th reshuffle with (``docs/verify.md``, Reshuffles):
    derived from its revealed key, or stand-ins (``Unseen.closed_reshuffle``); a drawer whose final
    discard it completes must then hold the cards it shows at the canto (``carries``).  ``None`` when
    the replay cannot go on."""
    if hand is None or hand.phase is not Phase.RESHUFFLE or hand.pending_draw is None:
        report.problem(f"{where}: a reshuffle, but replaying the entries before it, hand {number} needs no "
                       "reshuffle here (the stock did not run out)")
        return None
    key = deal["keys"].get(k)
    if key is not None:
        hidden = [c for c in hand.pile if unseen.is_stand_in(c)]
        if hidden:
            report.problem(f"{where}: the key of reshuffle {k} of hand {number} is revealed, but its pile holds "
                           f"{len(hidden)} card{'s' if len(hidden) != 1 else ''} the hand kept closed")
            return None
        seed = commitments.reshuffle_seed(deal["hand_id"], k, key)
        order = commitments.derived_shuffle(seed, sort_cards(hand.pile))
        if masked != order:
            report.problem(f"{where}: reshuffle {k} of hand {number} orders the pile as {_short(masked, 40)}, but the "
                           f"order derived from its revealed key (reshuffle_seed({deal['hand_id']}, {k}, key)) over "
                           f"the pile {sort_cards(hand.pile)} is {order}")
        drawn = [c for layer in hand.restock_layers(order) for c in layer]
    else:
        if masked is not None:
            report.problem(f"{where}: reshuffle {k} of hand {number} is kept closed (its key is not revealed), but "
                           "its entry shows an order; a closed reshuffle's order is null (it would tell who drew "
                           "which card)")
        order = drawn = unseen.closed_reshuffle(hand)
    seat, count = hand.pending_draw.seat, hand.pending_draw.count
    shown = carries.pop(seat, None)
    if shown is not None:
        mine = hand.hands[seat]
        why = unseen.canto(seat, [(mine, i) for i in range(len(mine))] + [(drawn, i) for i in range(count)], shown)
        if why:
            report.problem(f"{where}: {why}")
            return None
    hand.pile = list(order)  # the cards the engine finds in the pile: stand-ins, or the shown cards among them
    return order
