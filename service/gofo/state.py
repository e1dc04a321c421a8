"""The Gofo state machine, named as the game contract (:mod:`service.game`) names it.

A table (:class:`Table`, :mod:`service.gofo.table`: seats, ledger, first-dealer draw, the sequence
of hands) holds one hand (:class:`HandState`, :mod:`service.gofo.hand`), which is assembled from
three parts along the rule book's seams:

* :mod:`service.gofo.betting` – the opening, entering, raises, ver / no ver, cortes, refiches and
  the speaking rounds; :class:`Bet`, :class:`Pot`, :func:`side_pots`;
* :mod:`service.gofo.stock` – the deal, the completion, discards, the stock and its reshuffles;
* :mod:`service.gofo.canto` – the canto (shown, declared, corrected, mucked) and the payout.

``apply(seat, action)`` checks the move whole, then changes the state it is called on; a refused
move leaves it exactly as it was.  ``verify`` / ``is_legal`` ask without applying.
"""

from .betting import Bet, Pot, side_pots
from .canto import Canto
from .hand import HandState
from .stock import PendingDraw, Restock
from .table import Table, replay

__all__ = ["Bet", "Canto", "HandState", "PendingDraw", "Pot", "Restock", "Table", "replay", "side_pots"]
