"""Draw the font designs: our drawn decks (drawn-300 on) with the rank written in the fonts of
Debian's font packages, into deck folders ``out/decks/font-N`` that every training script
then uses like the rasterised Debian decks.

Why: the drawn decks write ranks in OpenCV's eight Hershey fonts, and a held-out design whose
index uses another letterform is read unsure or, worse, surely wrong (tango_nuevo's 9 read as
a Q at 0.93). People's decks use the world's fonts. Training only: needs Pillow and fonts::

    apt-get install fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-freefont-ttf \\
        fonts-urw-base35 fonts-noto-core fonts-croscore fonts-crosextra-carlito \\
        fonts-crosextra-caladea fonts-ebgaramond fonts-linuxlibertine fonts-roboto-unhinted \\
        fonts-cantarell fonts-open-sans
    pip install pillow
    PYTHONPATH=src python training/make_font_decks.py --decks 120

Each design takes the next font (in a fixed shuffle of the files, symbol fonts left out) and the params
of ``drawn-(300 + N)``; the fonts seen by each design are written to ``out/decks/fonts.txt``.
``--first N`` starts at font-N (appending to fonts.txt); ``--cyrillic SHARE`` gives that share
of the designs, where the font writes Cyrillic, the Russian court letters Т В Д К. Keep
clear of font-203..258: their params are those of drawn-503..558, the top-right designs the
benches hold out.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.core.cards import Card  # noqa: E402
from solitaire_coach.repo import repo_root  # noqa: E402
from solitaire_coach.vision.decks import FONTS_FROM, DrawnDeck  # noqa: E402

FONT_DIRS = ("/usr/share/fonts",)
# fonts without Latin letters and digits, or that draw symbols or keyboard keys instead
SKIP = ("D050000L", "StandardSymbols", "MathTeX", "Dingbat", "Symbol", "LinBiolinum_K")


def font_files() -> list[Path]:
    """Every Latin text font found under FONT_DIRS (one file per face, TrueType or OpenType)."""
    found = {}
    for d in FONT_DIRS:
        for p in Path(d).rglob("*"):
            if p.suffix.lower() not in (".ttf", ".otf") or any(s in p.name for s in SKIP):
                continue
            if p.name.startswith("Noto") and not any(p.name.startswith(f) for f in ("NotoSans-", "NotoSerif-")):
                continue  # Noto's other files are other scripts
            found.setdefault(p.stem, p)
    files = [found[k] for k in sorted(found)]
    # a fixed shuffle, so that the first designs already span the families
    return [files[i] for i in np.random.default_rng(7).permutation(len(files))]


def pil_glyphs(path: Path):
    """(text, height, stroke) -> uint8 ink mask of ``text`` in the font at ``path``, its
    letters ``height`` px tall (the stroke thickens it a little, as bold printing does)."""
    from PIL import Image, ImageDraw, ImageFont

    sizes: dict[int, object] = {}

    def draw(text: str, height: int, thick: int) -> np.ndarray:
        size = max(6, int(height * 1.4))
        font = sizes.get(size)
        if font is None:
            font = sizes[size] = ImageFont.truetype(str(path), size)
        x0, y0, x1, y1 = font.getbbox(text)
        img = Image.new("L", (x1 - x0 + 8, y1 - y0 + 8), 0)
        ImageDraw.Draw(img).text((4 - x0, 4 - y0), text, fill=255, font=font, stroke_width=max(0, thick - 2))
        m = np.asarray(img, np.uint8)
        ys, xs = np.nonzero(m > 40)
        if len(xs) == 0:
            raise ValueError(f"{path.name}: draws nothing for {text!r}")
        m = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
        k = height / m.shape[0]  # the ink's own height, whatever the font's metrics
        return cv2.resize(m, (max(1, int(round(m.shape[1] * k))), height), interpolation=cv2.INTER_AREA)

    return draw


# the Russian court letters and ace's mark: Туз, Валет, Дама, Король
CYRILLIC = ("\u0422", "\u0412", "\u0414", "\u041a")


def writes(glyphs, letters) -> bool:
    """Whether the font behind ``glyphs`` draws each of ``letters`` as a letter of its own:
    a font without them draws its one "missing" box for each, all alike."""
    masks = [glyphs(t, 40, 1) for t in letters]
    first = masks[0]
    return not all(m.shape == first.shape and np.array_equal(m, first) for m in masks[1:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Draw the font designs into deck folders (training only).")
    ap.add_argument("--decks", type=int, default=120, help="how many designs (default 120)")
    ap.add_argument("--out", default=str(repo_root() / "out" / "decks"))
    ap.add_argument("--first", type=int, default=0, help="the first design's number (default 0: font-0)")
    ap.add_argument(
        "--cyrillic",
        type=float,
        default=0.0,
        help="the share of designs (whose font writes Cyrillic) given the Russian court letters Т В Д К (default 0)",
    )
    args = ap.parse_args(argv)
    fonts = font_files()
    if not fonts:
        print(f"no fonts under {', '.join(FONT_DIRS)}: install the font packages named in this script's docstring")
        return 1
    out = Path(args.out)
    lines = []
    for n in range(args.first, args.first + args.decks):
        font = fonts[n % len(fonts)]
        glyphs = pil_glyphs(font)
        letters = None
        if np.random.default_rng(50_000 + n).random() < args.cyrillic and writes(glyphs, CYRILLIC):
            letters = CYRILLIC
        deck = DrawnDeck(FONTS_FROM + n, glyphs=glyphs, letters=letters)
        folder = out / f"font-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            for i in range(52):
                card = Card.from_index(i)
                cv2.imwrite(str(folder / f"{card.code}.jpg"), deck.face(card), [cv2.IMWRITE_JPEG_QUALITY, 92])
        except ValueError as exc:
            print(f"font-{n}: left out ({exc})")
            for f in folder.glob("*.jpg"):
                f.unlink()
            folder.rmdir()
            continue
        cv2.imwrite(str(folder / "back.jpg"), deck.back(), [cv2.IMWRITE_JPEG_QUALITY, 92])
        lines.append(f"font-{n}\tdrawn-{FONTS_FROM + n}\t{font.name}" + ("\tcyrillic" if letters else ""))
        print(
            f"font-{n}: {font.name}{' (Т В Д К)' if letters else ''}  ({n + 1 - args.first}/{args.decks})", flush=True
        )
    with open(out / "fonts.txt", "a" if args.first else "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
