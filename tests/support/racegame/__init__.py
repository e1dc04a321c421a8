"""Race to N: a tiny third game, registered only by tests/test_third_game.py, to show that a game is
its package plus one registry line. Seats take turns adding 1 to ``max_step`` to a running total;
whoever brings it to ``target`` wins.

It has every part a game has (service.games.contract) and nothing else: no HTTP module of its own.
"""

from service.games.contract import GameDefinition

GAME = GameDefinition(name="race", title="Race to N", package=__name__)
