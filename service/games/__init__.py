"""The games: the contract every game honours, the registry, and one package per game.

Pure Python, no I/O: nothing here imports the storage or the HTTP layers."""
