"""The rules alone of two trees, interleaved beside OpenSpiel's goofspiel: did a change make them faster?

``python -m bench.ab_engines OTHER_TREE [ROUNDS] [SECONDS]`` — e.g. ``main`` unpacked beside this one
(``git archive main | tar -x -C /tmp/main``).  Each round runs, for this tree and then the other, one
process that plays :func:`bench.engines.gops_rules_playout` for ``SECONDS`` and OpenSpiel's goofspiel
for as long (after one warm-up game of each), and prints games per CPU-second of both and their ratio;
at the end the median ratio of each tree and its range.  Each tree's ratio is taken against the
goofspiel run beside it, so the machine's load moves both sides of it; the rounds alternate the
trees, so a shared, busy machine slows both trees alike.  Measured so: bench/README.md, "Engines".
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_ONE_RUN = """
import json, random, sys
from bench.engines import ensure_pyspiel, gops_rules_playout, openspiel_playout, rate
goofspiel = ensure_pyspiel().load_game("goofspiel", {"num_cards": 13, "players": 2})
gops_rules_playout(random.Random(0)), openspiel_playout(random.Random(0), goofspiel)
seconds, seed = float(sys.argv[1]), int(sys.argv[2])
rules = rate(gops_rules_playout, seconds, seed)["playouts_per_cpu_s"]
other = rate(lambda rng: openspiel_playout(rng, goofspiel), seconds, seed)["playouts_per_cpu_s"]
print(json.dumps({"rules": rules, "goofspiel": other}))
"""


def one_run(tree: Path, seconds: float, seed: int) -> dict[str, float]:
    """Games per CPU-second of ``tree``'s rules alone and of goofspiel, in one fresh process."""
    out = subprocess.run([sys.executable, "-c", _ONE_RUN, str(seconds), str(seed)], cwd=tree,
                         env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    trees = {"this": HERE, "other": Path(argv[0]).resolve()}
    rounds = int(argv[1]) if len(argv) > 1 else 7
    seconds = float(argv[2]) if len(argv) > 2 else 2.0
    ratios: dict[str, list[float]] = {name: [] for name in trees}
    for r in range(rounds):
        for name, tree in trees.items():
            run = one_run(tree, seconds, r)
            ratios[name].append(run["rules"] / run["goofspiel"])
            print(f"round {r} {name}: {run['rules']:,.0f} games/CPU-s, goofspiel {run['goofspiel']:,.0f}, "
                  f"ratio {ratios[name][-1]:.3f}", flush=True)
    for name, tree in trees.items():
        got = ratios[name]
        print(f"{name} ({tree}): median ratio {statistics.median(got):.3f} "
              f"(range {min(got):.3f}-{max(got):.3f})")


if __name__ == "__main__":
    main(sys.argv[1:])
