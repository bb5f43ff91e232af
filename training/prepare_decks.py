"""Rasterise the Debian card decks (training only) into out/decks/NAME/{code}.jpg + back*.jpg.

Needs the Debian packages gnome-cards-data and kdegames-card-data-kf5 and rsvg-convert
(librsvg2-bin). The runtime never needs them. Usage: python training/prepare_decks.py [OUT]
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

WIDTH = 144
RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"]
RANK_CODES = "A234567890JQK"
SUITS = [("club", "C"), ("diamond", "D"), ("heart", "H"), ("spade", "S")]
# decks whose suits are not the French ones (or are not a 52-card Klondike deck)
SKIP = {"xskat-german", "swiss-xvii", "Атласные"}


def sources():
    for p in sorted(Path("/usr/share/aisleriot/cards").glob("*.svgz")):
        yield "gnome-" + p.stem, p, "gnome"
    for d in sorted(Path("/usr/share/carddecks").glob("svg-*")):
        for p in d.glob("*.svgz"):
            yield "kde-" + d.name[4:], p, "kde"


def ids_for(kind):
    out = {}
    for s, sc in SUITS:
        for r, rc in zip(RANKS, RANK_CODES):
            out[rc + sc] = f"{s}_{r}" if kind == "gnome" else f"{r}_{s}"
    return out


def render(svg: Path, elem: str, dst: Path):
    if dst.exists():
        return
    png = dst.with_suffix(".png")
    r = subprocess.run(["rsvg-convert", "-i", elem, "-w", str(WIDTH), str(svg), "-o", str(png)], capture_output=True)
    if r.returncode != 0:
        print("failed", svg.name, elem, r.stderr[:200], flush=True)
        return
    img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    png.unlink()
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError(f"bad render {svg} {elem}")
    # an element's bounding box can hold clear room beside the card (kde-standard's ace of
    # spades renders twice as tall, the card in its lower half): keep what is drawn
    ys, xs = np.nonzero(img[:, :, 3] > 8)
    if len(ys):
        img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    a = img[:, :, 3:4].astype(np.float32) / 255.0
    rgb = img[:, :, :3].astype(np.float32) * a + 255.0 * (1 - a)
    cv2.imwrite(str(dst), rgb.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 93])


def odd_shapes(d: Path, tolerance: float = 0.04) -> list[str]:
    """The faces of a deck folder whose height-to-width ratio is off the deck's own by more
    than ``tolerance`` (a face cut wrongly: the renderer would squash it into a card)."""
    ratios = {}
    for f in sorted(d.glob("*.jpg")):
        if f.stem == "back":
            continue
        img = cv2.imread(str(f))
        if img is not None:
            ratios[f.stem] = img.shape[0] / img.shape[1]
    if not ratios:
        return []
    typical = float(np.median(list(ratios.values())))
    return [code for code, r in ratios.items() if abs(r / typical - 1) > tolerance]


def render_grid(svg: Path, d: Path):
    """gnome-cards-data decks are laid out on a 13 x 5 grid (suits C D H S, then jokers, back)."""
    png = d / "page.png"
    subprocess.run(["rsvg-convert", "-w", str(WIDTH * 13), str(svg), "-o", str(png)], check=True, capture_output=True)
    img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    png.unlink()
    a = img[:, :, 3:4].astype(np.float32) / 255.0
    rgb = (img[:, :, :3].astype(np.float32) * a + 255.0 * (1 - a)).astype(np.uint8)
    ch, cw = img.shape[0] / 5, img.shape[1] / 13
    cells = {rc + sc: (si, ri) for si, (_, sc) in enumerate(SUITS) for ri, rc in enumerate(RANK_CODES)}
    cells["back"] = (4, 2)
    for code, (r, c) in cells.items():
        cell = rgb[int(r * ch) : int((r + 1) * ch), int(c * cw) : int((c + 1) * cw)]
        cv2.imwrite(str(d / f"{code}.jpg"), cell, [cv2.IMWRITE_JPEG_QUALITY, 93])


# kde decks whose element renders come out whole (the others give wrong bounding boxes)
KDE_OK = {"nicu-ornamental", "nicu-white", "standard", "tigullio-international"}


def main():
    import argparse

    ap = argparse.ArgumentParser(
        description="Rasterise the Debian card decks (gnome-cards-data, "
        "kdegames-card-data-kf5; rsvg-convert from librsvg2-bin) for training and the "
        "vision benchmarks."
    )
    ap.add_argument("out", nargs="?", default="out/decks", help="folder for the decks (default out/decks)")
    out = Path(ap.parse_args().out)
    found = list(sources())
    if not found:
        sys.exit(
            "no decks found: install the Debian packages gnome-cards-data and kdegames-card-data-kf5 "
            "(their SVGs in /usr/share/aisleriot/cards and /usr/share/carddecks)"
        )
    if shutil.which("rsvg-convert") is None:
        sys.exit("rsvg-convert not found: install the Debian package librsvg2-bin")
    tmp = Path(tempfile.mkdtemp())
    jobs = []
    for name, path, kind in found:
        if name.split("-", 1)[1] in SKIP:
            continue
        text = gzip.open(path, "rt", encoding="utf-8", errors="replace").read()
        ids = set(re.findall(r'id="([^"]+)"', text))
        want = ids_for(kind)
        if not all(v in ids for v in want.values()):
            print("skip (ids missing)", name)
            continue
        svg = tmp / (name + ".svg")
        svg.write_text(text, encoding="utf-8")
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        if kind == "gnome":
            render_grid(svg, d)
            print("rendered", name, flush=True)
            continue
        if name[4:] not in KDE_OK:
            d.rmdir() if not any(d.iterdir()) else None
            continue
        for code, elem in want.items():
            jobs.append((svg, elem, d / f"{code}.jpg"))
        backs = [b for b in ("back", "card_back") if b in ids]
        if backs:
            jobs.append((svg, backs[0], d / "back.jpg"))
    print(len(jobs), "cards to render", flush=True)
    done = 0
    with ThreadPoolExecutor(4) as ex:
        for _ in ex.map(lambda j: render(*j), jobs):  # noqa: B023
            done += 1
            if done % 200 == 0:
                print(done, "/", len(jobs), flush=True)
    # a deck with faces cut wrongly (kde-tigullio-international's courts render as their
    # pictures alone) would teach and measure squashed cards: it is left out
    for d in sorted({j[2].parent for j in jobs}):
        odd = odd_shapes(d)
        if odd:
            print(f"skip {d.name}: faces of another shape ({', '.join(odd)})", flush=True)
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
