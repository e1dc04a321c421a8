"""The home-screen icons of ``/play`` as PNG files, drawn here (no image library, no network).

``python -m service.web.play.icons`` writes ``static/icon-192.png`` and ``static/icon-512.png``: the
picture of ``static/icon.svg`` (a white card with a red K on the table's green felt), which the web
app manifest names for "Add to Home screen". The PNGs are committed; run this again after changing it.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
FELT = (0x0B, 0x3D, 0x2E)
WHITE = (0xFF, 0xFF, 0xFF)
BLACK = (0x00, 0x00, 0x00)
RED = (0xB0, 0x00, 0x20)
SIZES = (192, 512)


def _near_segment(x: float, y: float, a: tuple[float, float], b: tuple[float, float], width: float) -> bool:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    px, py = ax + t * dx - x, ay + t * dy - y
    return px * px + py * py <= (width / 2) ** 2


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) of the 64 × 64 picture of icon.svg (the felt fills the whole square:
    launchers cut their own shape from it)."""
    in_card = 18 <= x <= 46 and 12 <= y <= 52
    if not in_card:
        return FELT
    if x < 20 or x > 44 or y < 14 or y > 50:
        return BLACK  # the card's edge
    strokes = (((26, 22), (26, 42)), ((38, 22), (27, 33)), ((29, 31), (38, 42)))  # the K
    if any(_near_segment(x, y, a, b, 3.2) for a, b in strokes):
        return RED
    return WHITE


def png(size: int) -> bytes:
    scale = 64 / size
    rows = bytearray()
    for row in range(size):
        rows.append(0)  # filter: none
        for col in range(size):
            rows.extend(pixel((col + 0.5) * scale, (row + 0.5) * scale))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
            + chunk(b"IEND", b""))


def main() -> None:
    for size in SIZES:
        (STATIC / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
