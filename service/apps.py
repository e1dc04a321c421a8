"""The operator's command line for app keys (docs/operations.md#app-keys), against ``REDIS_URL``:

    python -m service.apps issue NAME [--requests-per-minute N] [--requests-per-hour N]
                                      [--creates-per-minute N] [--creates-per-hour N] [--origin URL ...]
    python -m service.apps list
    python -m service.apps limits NAME [the same options: only those given change]
    python -m service.apps roll NAME
    python -m service.apps revoke NAME

``issue`` and ``roll`` print the key once: only its SHA-256 is stored. A rolled or revoked key is
refused by every API process from the next request on; a revoked app keeps its name (never issued
again). Exit status ``0`` done, ``1`` refused (a name taken, unknown or revoked), ``2`` a wrong
command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from service import config
from service.api import auth
from service.games.registry import GAMES
from service.storage.apps import NAME_PATTERN, App, AppExists, AppRevoked, Apps, Limits, NoSuchApp, now
from service.storage.redis_client import make_client
from service.storage.store import Store

#: A key says what it is (as a token scanner would want) and holds 256 random bits.
KEY_PREFIX = "rk_"
LIMIT_OPTIONS = ("requests_per_minute", "requests_per_hour", "creates_per_minute", "creates_per_hour")


def new_key() -> str:
    return KEY_PREFIX + auth.new_token()


def _name(text: str) -> str:
    if not NAME_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError("a name is 1-40 of a-z 0-9 _ -, starting with a letter or digit")
    return text


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a limit is a whole number >= 0 (0: off)")
    return value


def _origin(text: str) -> str:
    settings_kind = config.origin()
    try:
        return settings_kind.parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an origin (scheme://host[:port])") from None


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m service.apps", description=__doc__.split("\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    def limits(sub: argparse.ArgumentParser, default: int | None) -> None:
        for option in LIMIT_OPTIONS:
            sub.add_argument("--" + option.replace("_", "-"), type=_count, default=default, metavar="N",
                             help=f"the app's {option.replace('_', ' ')}, all API processes together (0: off)")
        sub.add_argument("--origin", type=_origin, action="append", metavar="URL",
                         help="a browser origin the key may be sent from (repeat; none: any)")

    issue = commands.add_parser("issue", help="issue a key to a new app; prints it once")
    issue.add_argument("name", type=_name)
    limits(issue, 0)
    commands.add_parser("list", help="every app: its limits, origins, games and this minute's requests")
    change = commands.add_parser("limits", help="change an app's limits or origins (its key stays)")
    change.add_argument("name", type=_name)
    limits(change, None)
    roll = commands.add_parser("roll", help="give an app a new key; prints it once; the old one is refused")
    roll.add_argument("name", type=_name)
    revoke = commands.add_parser("revoke", help="refuse an app's key from now on, for good (its name stays taken)")
    revoke.add_argument("name", type=_name)
    return top


def main(argv: list[str] | None = None, out=sys.stdout) -> int:
    args = parser().parse_args(argv)
    settings = config.load()
    client = make_client(settings.redis_url or config.DEFAULT_REDIS_URL, timeout=settings.redis_timeout)
    apps = Apps(client, settings.key_prefix)
    try:
        if args.command == "issue":
            key = new_key()
            limits = Limits(**{option: getattr(args, option) for option in LIMIT_OPTIONS})
            apps.issue(App(args.name, limits, tuple(args.origin or ()), auth.token_hash(key), now()))
            print(f"issued {args.name}; its key (shown once, keep it secret):\n{key}", file=out)
        elif args.command == "roll":
            key = new_key()
            apps.roll(args.name, auth.token_hash(key), now())
            print(f"rolled {args.name}: its old key is refused from now on; its new key (shown once):\n{key}",
                  file=out)
        elif args.command == "revoke":
            apps.revoke(args.name, now())
            print(f"revoked {args.name}: its key is refused from now on", file=out)
        elif args.command == "limits":
            old = apps.get(args.name)
            changed = {o: getattr(args, o) for o in LIMIT_OPTIONS if getattr(args, o) is not None}
            app = apps.update(args.name, dataclasses.replace(old.limits, **changed), args.origin)
            print(_line(app, apps, Store(client, prefix=settings.key_prefix)), file=out)
        else:
            store = Store(client, prefix=settings.key_prefix)
            for app in apps.all():
                print(_line(app, apps, store), file=out)
    except AppExists as error:
        print(f"there is already an app named {error} (a revoked app keeps its name)", file=sys.stderr)
        return 1
    except AppRevoked as error:
        print(f"the app {error} is revoked", file=sys.stderr)
        return 1
    except NoSuchApp as error:
        print(f"there is no app named {error}", file=sys.stderr)
        return 1
    finally:
        client.close()
    return 0


def _line(app: App, apps: Apps, store: Store) -> str:
    """One app, with its usage: games indexed now, requests counted in the current minute."""
    limits = " ".join(f"{option.replace('_', '-')}={getattr(app.limits, option)}" for option in LIMIT_OPTIONS)
    games = apps.count_games(app.name, GAMES)
    requests = apps.redis.get(store.rate_key(f"app.{app.name}", "req"))
    if app.revoked is not None:
        return f"{app.name}  revoked  games={games}"
    return (f"{app.name}  {limits}  origins={','.join(app.origins) or '*'}  games={games}  "
            f"requests-this-minute={int(requests or 0)}  key=sha256:{app.key_hash[:12]}…")


if __name__ == "__main__":
    sys.exit(main())
