"""What Linux's /proc says about a server's processes and sockets: a gunicorn master's workers,
the TCP sockets on a port, and which process holds which socket.  Used by the bench (each
worker's CPU) and by the tests of how gunicorn listens and survives a crash."""

from __future__ import annotations

import os
from pathlib import Path

_TCP_STATES = {"0A": "listen", "01": "established"}


def children(pid: int) -> list[int]:
    """The PIDs of ``pid``'s child processes (a gunicorn master's: its workers)."""
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: each process's parent, from its stat
        pass
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may contain spaces, so split after the last ')'.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def tcp_sockets(port: int | None) -> dict[int, str]:
    """Socket inode -> state ("listen" or "established") of the TCP sockets whose local port is
    ``port`` (``None``: any port), IPv4 and IPv6."""
    found: dict[int, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], int(fields[9])
            if state in _TCP_STATES and (port is None or int(local.rsplit(":", 1)[1], 16) == port):
                found[inode] = _TCP_STATES[state]
    return found


def socket_owners(inodes: set[int], pids: list[int] | None = None) -> dict[int, set[int]]:
    """pid -> the socket inodes of ``inodes`` its file descriptors hold, over ``pids`` (default:
    every process)."""
    owners: dict[int, set[int]] = {}
    for pid in pids if pids is not None else map(int, filter(str.isdigit, os.listdir("/proc"))):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                owners.setdefault(pid, set()).add(int(target[8:-1]))
    return owners
