"""Builds the Gops values the referee's bots and hints look up (service/games/gops/data/).

``python -m tools.gops_values`` compiles ``build.c`` with the machine's C compiler, solves every
position with at most 7 cards in each hand (a few minutes on one core), writes the exact table of
hands up to 6 cards (``values.bin``), fits the estimates of larger hands (``estimates.bin``) and
prints how well each estimate fits.  numpy fits the estimates here; the service reads both files
with the standard library only.  How the values are solved and checked: ``docs/bots.md``.
"""
