"""Storage: the Redis/Valkey client, the game store (one compare-and-set script per move), the
archive of finished games, live-update pub/sub and the embedded server for `make run`."""
