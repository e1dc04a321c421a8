"""The store: one hash-tagged slot per game, atomic compare-and-set, expiry."""

from __future__ import annotations

import pytest
from redis.cluster import key_slot

from service.errors import NotFound
from service.storage.scripts import GONE, STALE, VETOED
from service.storage.store import Change, Record, Store


@pytest.fixture
def store(redis_url, redis_client):  # redis_client: the database is flushed first
    import redis

    return Store(redis.Redis.from_url(redis_url), prefix="t", finished_ttl=100, idle_ttl=1000)


def test_keys_of_one_game_share_a_cluster_slot(store):
    keys = [store.key("gops", "abc"), store.log_key("gops", "abc"), store.channel("gops", "abc")]
    assert len({key_slot(k.encode()) for k in keys}) == 1
    assert "{abc}" in keys[0]


def test_compare_and_set(store):
    record = store.create("gops", "g1", {"n": 0}, [{"version": 1}])
    saved = store.save(record, Change({"n": 1}, [{"version": 2}]))
    assert saved.code == 2 and saved.record.version == 2 and store.load("gops", "g1").doc == {"n": 1}
    refused = store.save(record, Change({"n": 99}, [{"version": 2}]))  # acted on version 1
    assert refused.code == STALE and refused.record is None
    assert store.load("gops", "g1").doc == {"n": 1}
    assert store.transcript("gops", "g1") == [{"version": 1}, {"version": 2}]


def test_a_lost_race_answers_with_the_game_as_it_is_now(store):
    """A save on a version someone else changed stores nothing and hands back the current record
    (read by the same script), on which the move is applied again (service.api.moves)."""
    record = store.create("gops", "g2", {"n": 0}, [])
    store.save(record, Change({"n": 10}, []))  # someone else, between our read and our save
    lost = store.save(record, Change({"n": 1}, []))
    assert lost.code == STALE and lost.current.version == 2 and lost.current.doc == {"n": 10}
    saved = store.save(lost.current, Change({"n": 11}, []))
    assert saved.code == 3 and store.load("gops", "g2").doc == {"n": 11}
    gone = store.save(Record("gops", "never", 1, {}), Change({}, []))
    assert gone.code == GONE


def test_a_kept_record_is_checked_by_its_bytes_not_only_its_version(store, redis_client):
    """After Redis lost acknowledged writes, a version number may come back with other content: a
    change made on the worker's kept record of that version (Store.latest) is not saved, and the
    save hands back the stored record, which replaces the kept one."""
    record = store.create("gops", "g4", {"n": 0}, [])
    store.save(record, Change({"n": 1}, []))  # version 2, kept here as the latest
    redis_client.hset(store.key("gops", "g4"), "doc", b'{"n":5}')  # version 2 again, other content
    kept = store.latest("gops", "g4")
    assert kept.version == 2 and kept.doc == {"n": 1} and kept.fingerprint
    refused = store.save(kept, Change({"n": 2}, []))
    assert refused.code == STALE and refused.current.version == 2 and refused.current.doc == {"n": 5}
    assert store.load("gops", "g4").doc == {"n": 5}
    assert store.latest("gops", "g4").doc == {"n": 5}  # the stored bytes replaced the kept ones
    redis_client.hset(store.key("gops", "g4"), "doc", b'{"n":7}')
    refused = store.save(store.latest("gops", "g4"), Change({"n": 6}, []))
    assert refused.code == STALE and refused.current.doc == {"n": 7}
    saved = store.save(refused.current, Change({"n": 8}, []))
    assert saved.code == 3 and store.load("gops", "g4").doc == {"n": 8}
    # and back to a lower version: what the save read back replaces the newer record kept here
    lost = redis_client.dump(store.key("gops", "g4"))
    store.save(store.latest("gops", "g4"), Change({"n": 9}, []))  # version 4, kept here
    redis_client.restore(store.key("gops", "g4"), 0, lost, replace=True)  # version 3 again
    refused = store.save(store.latest("gops", "g4"), Change({"n": 10}, []))
    assert refused.code == STALE and refused.current.version == 3
    assert store.latest("gops", "g4").version == 3 and store.latest("gops", "g4").doc == {"n": 8}


def test_expiry_idle_and_finished(store, redis_client):
    record = store.create("gops", "g3", {}, [{"v": 1}])
    assert 990 < redis_client.ttl(store.key("gops", "g3")) <= 1000
    store.save(record, Change({}, [{"v": 2}], finished=True))
    assert 90 < redis_client.ttl(store.key("gops", "g3")) <= 100
    # Finished: the log is in the archive, in the game's hash, which expires with it.
    assert not redis_client.exists(store.log_key("gops", "g3"))
    assert store.transcript("gops", "g3") == [{"v": 1}, {"v": 2}]


def test_missing_game(store):
    with pytest.raises(NotFound):
        store.load("gops", "nope")


class Gate:
    """A rider that is no rate limit (the store must not care what a rider is for): it counts its
    key and vetoes a save once the count passes ``limit``."""

    lua = """
local function rider(keys, k0, n, argv, a0, m)
  local count = redis.call('INCR', keys[k0])
  return {count}, count > tonumber(argv[a0])
end
"""

    def __init__(self, store: Store, key: str, limit: int) -> None:
        self.keys, self.args, self.reply = (key,), (limit,), None
        self._script = store.redis.register_script(self.lua + "local out = rider(KEYS, 1, 1, ARGV, 1, 1) return out")
        self._script(keys=list(self.keys), args=list(self.args))  # loaded (and counted once)

    def command(self) -> tuple:
        return ("EVALSHA", self._script.sha, 1, *self.keys, *self.args)


def test_a_rider_runs_first_in_the_same_step_and_may_veto_a_save(store, redis_client):
    """A caller's script rides in a read's pipeline or inside the save (service.api.ratelimit's hit
    is one); the store hands back its reply, and a vetoed save stores nothing."""
    store.carry(Gate.lua)
    gate = Gate(store, "t:gate", limit=3)
    record = store.create("gops", "g5", {"n": 0}, [])
    fetched = store.fetch("gops", "g5", rider=gate)
    assert fetched.doc == {"n": 0} and gate.reply == [2]
    saved = store.save(fetched, Change({"n": 1}, [{"v": 2}]), rider=gate)
    assert saved.code == 2 and gate.reply == [3]
    vetoed = store.save(saved.record, Change({"n": 2}, [{"v": 3}]), rider=gate)
    assert vetoed.code == VETOED and vetoed.record is None and gate.reply == [4]
    assert store.load("gops", "g5").doc == {"n": 1} and store.transcript("gops", "g5") == [{"v": 2}]
    assert store.save(saved.record, Change({"n": 2}, [])).code == 3  # no rider: no veto
    assert store.recall_answer("gops", "g5", "none", rider=gate) is None and gate.reply == [5]
    with pytest.raises(ValueError):  # a rider of other Lua than the store's saves carry
        other = Gate(store, "t:other", limit=1)
        other.lua = other.lua + "\n"
        store.save(store.load("gops", "g5"), Change({"n": 3}, []), rider=other)
