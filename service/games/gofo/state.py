"""The Gofo state machine, named as the game contract (:mod:`service.games.contract`) names it.

A table (:class:`Table`, :mod:`service.games.gofo.table`: seats, ledger, first-dealer draw, the sequence
of hands) holds one hand (:class:`HandState`, :mod:`service.games.gofo.hand`), which is assembled from
three parts along the rule book's seams:

* :mod:`service.games.gofo.betting` – the opening, entering, raises, ver / no ver, cortes, refiches and
  the speaking rounds; :class:`Bet`, :class:`Pot`, :func:`side_pots`;
* :mod:`service.games.gofo.stock` – the deal, the completion, discards, the stock and its reshuffles;
* :mod:`service.games.gofo.canto` – the canto (shown, declared, corrected, mucked) and the payout.

What a hand leaves (its discards, reshuffles, paid pots, result; the table's record of a finished
hand) is in :mod:`service.games.gofo.records`.

``apply(seat, action)`` checks the move whole, then changes the state it is called on; a refused
move leaves it exactly as it was.  ``verify`` / ``is_legal`` ask without applying.
"""

from service.games.gofo.betting import Bet, Pot, side_pots
from service.games.gofo.canto import Canto
from service.games.gofo.hand import HandState
from service.games.gofo.records import DiscardRecord, HandRecord, HandResult, PaidPot, Restock
from service.games.gofo.stock import PendingDraw
from service.games.gofo.table import Table, replay

__all__ = ["Bet", "Canto", "DiscardRecord", "HandRecord", "HandResult", "HandState", "PaidPot", "PendingDraw", "Pot",
           "Restock", "Table", "replay", "side_pots"]
