"""python -m tools.gops_values [--samples N] [--check]: rebuild service/games/gops/data/."""

from __future__ import annotations

import argparse
import itertools
import shutil
import struct
import subprocess
import sys
import tempfile
from math import comb
from pathlib import Path

import numpy as np

from service.games.gops import values

HERE = Path(__file__).resolve().parent
DATA = values.FILE.parent
TABLE_CARDS = 6      # hands whose exact values ship (values.bin): the last 7 rounds are exact
SOLVED_CARDS = 7     # hands solved exactly here (the 7-card estimate is fitted on all of them)
LAST_ESTIMATE = 12   # the first round of a 13-card game looks 12 cards ahead


def compile_builder(workdir: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        sys.exit("tools.gops_values needs a C compiler (cc, gcc or clang)")
    binary = workdir / "build"
    command = [compiler, "-O2", "-o", str(binary), str(HERE / "build.c"), "-lm"]
    if subprocess.run(command + ["-fopenmp"], capture_output=True).returncode:  # one thread a core, where it can
        subprocess.run(command, check=True)
    return binary


def solve_table(binary: Path, cards: int, scale: int, target: Path) -> None:
    with open(target, "wb") as out:
        subprocess.run([str(binary), "table", str(cards), str(scale)], stdout=out, check=True)


def blocks(path: Path) -> tuple[int, list[tuple[int, int, int, int]]]:
    """The values file's scale and, per block, ``(k, orders, offset of its values, their count)``."""
    data = path.read_bytes()
    _, top, scale = struct.unpack_from("<8sii", data, 0)
    at, out = 16, []
    for _ in range(top):
        k, count = struct.unpack_from("<ii", data, at)
        at += 8
        n = comb(values.RANKS, k) * count
        out.append((k, count, at, n))
        at += 2 * n
    return scale, out


def prize_sets(k: int) -> np.ndarray:
    """Every set of k prizes, sorted, in the table's (colex) order."""
    sets = sorted(itertools.combinations(range(1, values.RANKS + 1), k), key=values.prize_rank)
    return np.array(sets, dtype=float)


def fit_per_order(solved: Path, k: int) -> tuple[np.ndarray, float, float]:
    """Weights per kept order of k-card hands: f ≈ Σ_c w[c] · P_c over every set of prizes; the
    fit's root mean square and largest error."""
    data = solved.read_bytes()
    scale, found = blocks(solved)
    _, count, at, n = next(b for b in found if b[0] == k)
    table = np.frombuffer(data, dtype="<i2", count=n, offset=at).reshape(-1, count) / scale
    P = prize_sets(k)
    weights, *_ = np.linalg.lstsq(P, table, rcond=None)
    error = P @ weights - table
    return weights.T.astype("<f4"), float(np.sqrt((error ** 2).mean())), float(np.abs(error).max())


def features(V: np.ndarray, Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """(sgn(V_a - Y_b) - sgn(Y_a - V_b)) · P_c for every sample (rows) and every (a, b, c): a model
    on these is worth exactly the opposite with the seats swapped, and 0 for equal hands."""
    signs = np.sign(V[:, :, None] - Y[:, None, :]) - np.sign(Y[:, :, None] - V[:, None, :])
    return (signs[:, :, :, None] * P[:, None, None, :]).reshape(len(V), -1)


def plain_weights(weights: np.ndarray, k: int) -> np.ndarray:
    """The weights on sgn(V_a - Y_b) · P_c alone that give the same model: w[a][b] + w[b][a]."""
    w = weights.reshape(k, k, k)
    return (w + w.transpose(1, 0, 2)).reshape(-1)


def samples(binary: Path, k: int, n: int, seed: int, solved: Path, model: Path | None):
    args = [str(binary), "samples", str(k), str(n), str(seed), str(solved)] + ([str(model)] if model else [])
    raw = subprocess.run(args, check=True, capture_output=True).stdout
    record = np.dtype([("cards", "u1", 3 * k), ("f", "<f8")])
    data = np.frombuffer(raw, dtype=record)
    cards = data["cards"].astype(float)
    return cards[:, :k], cards[:, k:2 * k], cards[:, 2 * k:], data["f"]


def fit_model(binary: Path, k: int, n: int, solved: Path, model: Path | None):
    """The weights of the k-card model, fitted on ``n`` random positions valued a round deeper,
    and its error on as many others (root mean square, and the random-play estimate's)."""
    V, Y, P, f = samples(binary, k, n, seed=k, solved=solved, model=model)
    weights, *_ = np.linalg.lstsq(features(V, Y, P), f, rcond=None)
    V2, Y2, P2, f2 = samples(binary, k, n // 4, seed=1000 + k, solved=solved, model=model)
    error = features(V2, Y2, P2) @ weights - f2
    weights = plain_weights(weights, k)
    random_play = P2.sum(axis=1) * np.sign(V2[:, :, None] - Y2[:, None, :]).mean(axis=(1, 2)) - f2
    return weights, float(np.sqrt((error ** 2).mean())), float(np.sqrt((random_play ** 2).mean()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=30, help="random positions per weight of each model")
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--solved", type=Path, help="a file `build table 7 256` wrote before: skip solving it again")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        binary = compile_builder(work)
        args.out.mkdir(parents=True, exist_ok=True)
        print(f"solving every position of up to {TABLE_CARDS} cards ...", flush=True)
        solve_table(binary, TABLE_CARDS, 512, args.out / "values.bin")
        solved = args.solved or work / "solved.bin"
        if not args.solved:  # 7-card values reach 70 points: scaled by 256 to fit int16
            print(f"solving every position of up to {SOLVED_CARDS} cards ...", flush=True)
            solve_table(binary, SOLVED_CARDS, 256, solved)
        per_order, rms, worst = fit_per_order(solved, SOLVED_CARDS)
        print(f"{SOLVED_CARDS} cards: per-order estimate, rms error {rms:.3f}, largest {worst:.3f}", flush=True)
        parts = [b"GOPSEST1", struct.pack("<iii", SOLVED_CARDS, LAST_ESTIMATE, len(per_order)),
                 per_order.tobytes()]
        model = None
        for k in range(SOLVED_CARDS + 1, LAST_ESTIMATE + 1):
            weights, rms, random_rms = fit_model(binary, k, args.samples * k ** 3, solved, model)
            print(f"{k} cards: model rms error {rms:.3f} (random play: {random_rms:.3f})", flush=True)
            parts.append(weights.astype("<f4").tobytes())
            model = work / f"model{k}.txt"
            model.write_text(" ".join(repr(float(w)) for w in weights))
        (args.out / "estimates.bin").write_bytes(b"".join(parts))
    print(f"wrote {args.out / 'values.bin'} and {args.out / 'estimates.bin'}")


if __name__ == "__main__":
    main()
