"""The Gofo state machine, named as the game contract (:mod:`service.games.contract`) names it: a
:class:`Table` holding one :class:`HandState`, made of betting, stock and canto (``docs/where/gofo.md``).

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
