"""Markdown tables of a bench report: ``python -m bench.report_md [bench/results/latest.json]``.

What bench/README.md's "Recorded run" section shows, so a later run (after a change) is recorded
the same way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

NAMES = {
    "gops": "gops moves", "gofo": "gofo moves (GET+POST)",
    "read_gops_public": "gops public view", "read_gops_seat": "gops seat view",
    "read_gofo_public": "gofo public view", "read_gofo_seat": "gofo seat view",
}
REQUESTS = {
    "gops_create": "Gops create", "gops_commit": "Gops commit", "gops_reveal": "Gops reveal",
    "gops_public_view": "Gops public view", "gops_seat_view": "Gops seat view",
    "gofo_create": "Gofo create", "gofo_move": "Gofo move", "gofo_seat_view": "Gofo seat view",
    "gofo_public_view": "Gofo public view", "bare_post": "bare POST", "bare_get": "bare GET",
}


def render(r: dict[str, Any]) -> str:
    m, h, out = r["meta"], r["http"], []
    g = m["gunicorn"]
    out.append(f"`{m['command']}` started {m['started']}, commit `{m['git']['commit'][:7]}` "
               f"({m['git']['dirty_files']} files changed in the tree), worker class `{g['worker_class']}`, "
               f"{g['workers']} workers × {g['threads']} threads, Python {m['python']}, {m['cpus']} cores, "
               f"load average {m['load_average_at_start'][0]:.1f} → {m['load_average_at_end'][0]:.1f}, {m['seconds']:.0f} s.\n")
    out.append("| workload | conns | ratio (rounds) | p50 ms referee / bare | p99 ms referee / bare | app CPU per unit: ratio (referee vs bare ms) |")
    out.append("|---|---|---|---|---|---|")
    for name, label in NAMES.items():
        for conns, e in h.get(name, {}).items():
            lat = "move" if name in ("gops", "gofo") else "read"
            a, b = e["referee"]["latency"][lat], e["bare"]["latency"][lat]
            rounds = ", ".join(f"{x:.2f}" for x in e["ratios"])
            out.append(f"| {label} | {conns} | **{e['ratio']:.2f}** ({rounds}) | {a['p50_ms']:.1f} / {b['p50_ms']:.1f} | "
                       f"{a['p99_ms']:.0f} / {b['p99_ms']:.0f} | {e['cpu_ratio']:.1f}× ({e['referee']['cpu_ms_per_unit']:.2f} vs "
                       f"{e['bare']['cpu_ms_per_unit']:.2f}) |")
    out.append("\n| request | round trips (limiter as served \\| off \\| no latest record) | commands (server) | client sends |")
    out.append("|---|---|---|---|")
    for key, label in REQUESTS.items():
        e = r["redis"].get(key)
        if not e:
            continue
        variants = [e, *(v for v in (e.get("without_rate_limit"), e.get("without_latest_record")) if v)]
        rt = " \\| ".join(str(v["round_trips"]) for v in variants)
        cm = " \\| ".join(str(v["commands"]) for v in variants)
        out.append(f"| {label} | {rt} | {cm} | {' '.join(e['typical_client_commands'])} |")
    out.append("\n| what | MEMORY USAGE |")
    out.append("|---|---|")
    for key, e in r["memory"].items():
        parts = ", ".join(f"{k.rsplit('}', 1)[-1].lstrip(':') or 'document'}: {v:,} B" for k, v in e.get("key_bytes", {}).items())
        out.append(f"| {key.replace('_', ' ')} | {e['kib']:.2f} KiB{' (' + parts + ')' if parts else ''} |")
    eng = r["engine"]
    gv = eng["gops_vs_openspiel"]
    out.append("\n| engine-only random playouts | |")
    out.append("|---|---|")
    out.append(f"| Gops ÷ OpenSpiel goofspiel (13 cards, 2 players) | **{gv['ratio']:.4f}** (rounds "
               f"{', '.join(f'{x:.4f}' for x in gv['ratios'])}): {gv['gops_games_per_cpu_s']:.0f} vs "
               f"{gv['openspiel_games_per_cpu_s']:.0f} games per CPU-second |")
    if "gops_rules_vs_openspiel" in eng:
        gr, cf = eng["gops_rules_vs_openspiel"], eng["crypto_floor"]
        out.append(f"| Gops rules alone (`play_bids`, no commit–reveal) ÷ goofspiel | **{gr['ratio']:.4f}** (rounds "
                   f"{', '.join(f'{x:.4f}' for x in gr['ratios'])}): {gr['gops_games_per_cpu_s']:.0f} games per CPU-second |")
        out.append(f"| crypto floor of a protocol game (27 salts, 53 SHA-256) | {cf['us_per_game']:.0f} µs CPU a game: "
                   f"at most {cf['vs_openspiel']:.3f}× goofspiel |")
    out.append(f"| Gofo actions/s ÷ goofspiel actions/s (yardstick) | {eng['gofo']['actions_vs_openspiel_actions']:.4f}; "
               f"{eng['gofo']['hands_per_cpu_s']:.0f} dealt 5-seat hands per CPU-second, "
               f"{eng['gofo']['actions_per_hand']:.0f} actions a hand |")
    if r.get("profile"):
        p = r["profile"]
        out.append(f"\nProfile: {p['profiled_moves']} profiled moves; CPU per move unprofiled {p['cpu_ms_per_move']:.1f} ms.\n")
        out.append("| area | CPU self-time share |")
        out.append("|---|---|")
        for area, share in p["areas"].items():
            if share >= 0.005:
                out.append(f"| {area} | {share:.1%} |")
        out.append("\ncalls per move: " + ", ".join(f"{k} {v:g}" for k, v in p["calls_per_move"].items()))
    out.append("\n| figure | now | target | end | met |")
    out.append("|---|---|---|---|---|")
    for row in r["targets"]:
        now = row["now"]
        out.append(f"| {row['figure']} | {now if isinstance(now, int) else round(now, 4)} | {row['target']} | {row['end']} | "
                   f"{'yes' if row['met'] else 'no'} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else Path(__file__).resolve().parent / "results" / "latest.json"
    sys.stdout.write(render(json.loads(path.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
