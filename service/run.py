"""Run the referee locally: ``python -m service.run`` (what ``make run`` does; docs/operations.md).

With ``REDIS_URL`` unset, a supervised embedded Valkey (AOF under ``REFEREE_DATA_DIR``) is started
first and stopped after gunicorn exits. gunicorn serves ``service.wsgi:app`` with
``deploy/gunicorn.conf.py`` in a process group of its own; the first line printed names the
address phones open to play. Ctrl-C (or SIGTERM) stops gunicorn, then Valkey; gunicorn's exit code
is this program's. Extra arguments are passed on to gunicorn.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
import subprocess
import sys
from pathlib import Path

from service import config
from service.storage.embedded import EmbeddedServerError, Supervisor, start_server
from service.storage.valkey import die_with_parent

REPO_ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = REPO_ROOT / "deploy" / "gunicorn.conf.py"
GUNICORN_STOP_TIMEOUT = 60.0  # gunicorn's own graceful_timeout is shorter


def gunicorn_argv(extra: list[str], settings: config.Settings) -> list[str]:
    argv = [sys.executable, "-m", "gunicorn"]
    if GUNICORN_CONF.is_file():
        argv += ["-c", str(GUNICORN_CONF)]
    else:  # installed without the repo: same essentials as the config file
        argv += ["--bind", f"{settings.host}:{settings.port}", "--worker-class", "gthread"]
    return argv + [*extra, "service.wsgi:app"]


def lan_address() -> str | None:
    """This machine's address on its local network: the one a connection out leaves from (a UDP
    socket's connect sends nothing). None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            return probe.getsockname()[0]
        except OSError:
            return None


def startup_message(settings: config.Settings, store: str, lan: str | None) -> str:
    """What ``make run`` prints first: the address of ``/play`` for phones at the table (`lan`:
    this machine's address on its network), then the API's, the docs' and the store."""
    base = f"http://{settings.host}:{settings.port}"
    every_interface = settings.host in ("0.0.0.0", "::", "")
    try:
        loopback = ipaddress.ip_address(settings.host).is_loopback
    except ValueError:
        loopback = settings.host == "localhost"
    if settings.public_url:
        play = f"play at {settings.public_url}/play"
    elif every_interface and lan:
        play = f"play at http://{lan}:{settings.port}/play (phones on this network)"
        base = f"http://{lan}:{settings.port}"
    elif every_interface or loopback:
        local = f"http://127.0.0.1:{settings.port}"
        play = f"play at {local}/play" + ("" if every_interface else " (this computer only: HOST=0.0.0.0 lets phones on the network join)")
        base = local
    else:
        play = f"play at {base}/play"
    return f"referee: {play}\nreferee API at {base}/  spec {base}/openapi.json  docs {base}/docs  store {store}"


def main(argv: list[str] | None = None) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    try:
        settings = config.load()
    except config.ConfigError as exc:
        print(f"service.run: {exc}", file=sys.stderr)
        return 1
    # gunicorn reads its own settings (deploy/gunicorn.conf.py); these are the ones it is handed.
    handed = {"HOST": settings.host, "PORT": str(settings.port), "PYTHONUNBUFFERED": "1"}

    supervisor = None
    if settings.redis_url is None:
        try:
            # Own process group: a terminal Ctrl-C reaches gunicorn, not Valkey, so Valkey outlives
            # the last request and is stopped below. PR_SET_PDEATHSIG still stops it if we are killed.
            valkey = start_server(data_dir=settings.data_dir, isolate_signals=True)
        except EmbeddedServerError as exc:
            print(f"service.run: could not start the embedded Valkey: {exc}", file=sys.stderr)
            return 1
        supervisor = Supervisor(valkey).start()
        handed["REDIS_URL"] = valkey.url
        store = f"embedded Valkey {valkey.url} (AOF in {valkey.data_dir})"
    else:
        store = settings.redis_url

    print(startup_message(settings, store, lan_address()), flush=True)

    stop_requests = 0
    proc: subprocess.Popen[bytes] | None = None

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stop_requests
        stop_requests += 1
        if proc is None or proc.poll() is not None:
            return
        # 1st: graceful (gunicorn has its own process group: a terminal Ctrl-C reaches only
        # this program, and gunicorn's workers finish their requests and exit cleanly — told
        # to quit at once, a gevent worker prints a SystemExit traceback per worker);
        # 2nd: impatient, kill the master (its workers notice and exit).
        if stop_requests == 1:
            print(f"referee: stopping; open requests and event streams get up to {settings.graceful_timeout} s"
                  " (again to stop now)", flush=True)
        proc.send_signal(signal.SIGTERM if stop_requests == 1 else signal.SIGKILL)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        proc = subprocess.Popen(gunicorn_argv(extra, settings), env=config.child_environment(**handed),
                                process_group=0, **die_with_parent())
        if stop_requests:  # a signal came before proc was set
            proc.terminate()
        try:
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=GUNICORN_STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            code = proc.returncode
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if supervisor is not None:
            supervisor.stop()  # no restart from here on; then SIGTERM, the AOF flushed
    if code < 0:  # killed by a signal
        code = 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main())
