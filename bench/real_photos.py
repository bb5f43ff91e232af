"""Measure the card detector on real photos (``../shared/realphotos``: see its README).

Usage: python bench/real_photos.py PATH [--model DIR] [--rotate 0|90|180|270] [--width W] [--light F|B,G,R]
                                   [--groups suit_3,simple,...] [--limit N] [--curve] [--json OUT]

PATH is the folder of real photos (its README describes it); when it is absent the benchmark
says so and exits 0, so it can be run anywhere. The photos are only read: nothing is copied
or trained on.

For each group of frames it prints, over the labelled face-up cards (each label box covers a
printed index corner; a card counts once per frame however many of its corners are
labelled):

* read: a card found and read as itself;
* UU: found and left unreadable;
* wrong: found and read as another card, plus any card read that is not on the table at all
  (a "phantom", also printed apart);
* back: taken for a face-down card; not found: no detection over any of its corners;
* backs found (backs are not labelled: a count, for the frames that hold some), the columns
  given a face-down count (``detect``'s ``down``: the suit_3 layouts have no face-down
  cards in their columns, so there every one counted is a phantom), and the latency
  of the whole frame-to-snapshot step (median and 90th percentile).

``--light`` multiplies every frame's blue, green and red by the factors given (one for all
three, or three), for a dim room or a coloured lamp. ``--rotate`` turns every frame (and its labels) by that many degrees clockwise and
``--width`` scales it to that width (area averaging when shrinking) before reading, for the
"any orientation, any scale" figures. ``--curve`` reads with no threshold and prints, for
candidate thresholds, how many cards would be read and how many wrong (how the thresholds
of ``vision.json`` are checked on real frames).

Groups: ``suit_3`` (layouts: rows and fanned columns), ``suit_3_layouts`` (the same without
the six fanned-hand frames), ``simple``, ``simple_rotated``, ``stacked``, ``suit_1``,
``suit_2``, ``phone`` (Gruppe17's 52-card phone photo, hand-read labels).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from solitaire_coach.core.cards import Card  # noqa: E402
from solitaire_coach.vision import detector as D  # noqa: E402

EYE = "EyePlaySolitaire"
SUITES = f"{EYE}/ComputerVision/test/all_suites"
GROUPS = {
    "suit_3": f"{SUITES}/source/suit_3",
    "simple": f"{SUITES}/dedicated/simple",
    "simple_rotated": f"{SUITES}/dedicated/simple_rotated",
    "stacked": f"{SUITES}/dedicated/stacked",
    "suit_1": f"{SUITES}/source/suit_1",
    "suit_2": f"{SUITES}/source/suit_2",
}
FANNED_HANDS = {
    f"WIN_20200612_{t}_Pro" for t in ("11_02_09", "11_03_03", "11_04_08", "11_21_25", "11_22_33", "11_23_53")
}
# the README's known label errors: frame (stem ends with) -> cards truly on the table but
# missing from (or mislabelled in) its labels; reading them is not a wrong read
LABEL_FIXES = {
    "10_50_54": {"5S"},
    "11_12_32": {"JC"},
    "11_15_01": {"4C"},
    "11_50_53": {"KH"},
    "11_51_55": {"KS"},
    "11_52_46": {"KC"},
    "12_08_09": {"4C"},
    "12_11_22": {"9H"},
    "11_49_43": {"JD"},
    "12_07_22": {"8D"},
    "11_03_03": {"JC"},
    # the A♥ as the README lists; the 9♥ and 8♦ above the 4♦ found here (stop 65), by eye
    "12_54_05_Pro.mp4frame50": {"AH", "9H", "8D"},
    # found here, checked by eye: a 6♦ labelled 6h
    "12_05_24": {"6D"},
    # found here (stop 65), checked by eye: the 5♦ at the top of the middle column, unlabelled
    "12_54_05_Pro.mp4frame250": {"5D"},
}


def label_names(root: Path) -> list[str]:
    """The class names of the YOLO labels (obj.names), as card codes (``10s`` -> ``TS``)."""
    names = (root / EYE / "ComputerVision/input/obj.names").read_text().split()
    return [card_code(n) for n in names]


def card_code(name: str) -> str:
    """``10s`` / ``Ah`` -> the project's card code ``0S`` / ``AH``."""
    rank, suit = name[:-1], name[-1].upper()
    return Card.parse(("0" if rank == "10" else rank.upper()) + suit).code


def load_frames(root: Path, group: str, names: list[str]):
    """(name, image path, {card code: [(x, y) normalised corner centres]}, extra allowed cards)."""
    if group == "phone":
        labels = json.loads((root / "Gruppe17/labels_handread.json").read_text())
        cards = {card_code(c): [] for row in labels["saved.jpg"] for c in row if c != "JOKER"}
        yield "saved", root / "Gruppe17/saved.jpg", cards, set()
        return
    folder = root / GROUPS["suit_3" if group == "suit_3_layouts" else group]
    for img in sorted(folder.glob("*.jpg")):
        if group == "suit_3_layouts" and img.stem in FANNED_HANDS:
            continue
        txt = img.with_suffix(".txt")
        if not txt.exists():
            continue
        cards: dict[str, list] = {}
        for line in txt.read_text().split("\n"):
            parts = line.split()
            if len(parts) == 5:
                cards.setdefault(names[int(parts[0])], []).append((float(parts[1]), float(parts[2])))
        extra = set()
        for key, fix in LABEL_FIXES.items():
            if img.stem.endswith(key) or key in img.stem:
                extra |= fix
        yield img.stem, img, cards, extra


def rotate_point(x: float, y: float, degrees: int) -> tuple[float, float]:
    """A normalised point of a frame turned ``degrees`` clockwise."""
    if degrees == 90:
        return 1 - y, x
    if degrees == 180:
        return 1 - x, 1 - y
    if degrees == 270:
        return y, 1 - x
    return x, y


ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def prepare(
    frame: np.ndarray, rotate: int, width: int | None, light: tuple[float, float, float] | None = None
) -> np.ndarray:
    """The frame turned, scaled and its light changed as asked (``light``: a factor for each
    of its blue, green and red channels: a dim room, a warm lamp)."""
    if light is not None:
        frame = np.clip(frame.astype(np.float32) * np.float32(light), 0, 255).astype(np.uint8)
    if rotate:
        frame = cv2.rotate(frame, ROTATE[rotate])
    if width and width != frame.shape[1]:
        h = int(round(frame.shape[0] * width / frame.shape[1]))
        interp = cv2.INTER_AREA if width < frame.shape[1] else cv2.INTER_CUBIC
        frame = cv2.resize(frame, (width, h), interpolation=interp)
    return frame


def covers(quad: np.ndarray, pt: tuple[float, float], margin: float = 0.12, reach: float = 0.0) -> bool:
    """Whether image point ``pt`` lies in detection ``quad`` grown by ``margin`` of its size,
    or within ``reach`` pixels of its first point (the card's own top-left corner, where its
    index is: the quad of a card covered by the next one of a fanned row can be a sliver)."""
    x0, y0 = quad.min(0)
    x1, y1 = quad.max(0)
    mx, my = margin * (x1 - x0), margin * (y1 - y0)
    if x0 - mx <= pt[0] <= x1 + mx and y0 - my <= pt[1] <= y1 + my:
        return True
    return bool(np.hypot(pt[0] - quad[0][0], pt[1] - quad[0][1]) <= reach)


def card_turn(pts_px: list[tuple[float, float]]) -> float | None:
    """How far a card lies turned on the table (degrees, 0..90, either way), from its four
    labelled index corners (this deck prints one in each corner; the nearest two lie along
    the card's short side). None for a card with fewer labelled: two of them may be a short
    or a long side (a card fanned down or sideways), so they do not tell."""
    if len(pts_px) != 4:
        return None
    p = np.asarray(pts_px, float)
    near = 1 + int(np.argmin(np.hypot(*(p[1:] - p[0]).T)))
    dx, dy = p[near] - p[0]
    side = float(np.degrees(np.arctan2(dy, dx)))
    return abs((side + 90.0) % 180.0 - 90.0)


TURN_BANDS = ((0, 10), (10, 30), (30, 60), (60, 91))


def score_frame(cards: dict, extra: set, dets, size: tuple[int, int], thresh=None, across: int = 0):
    """Per labelled card its outcome (read / UU / wrong / back / missing), with the confidence
    and strip flag of the detection that decided it; and the phantom reads.

    ``dets``: (code or None for UU or 'back', confidence, strip, likeliest code, quad) per
    detection. With ``thresh`` (whole, strip) the codes are re-decided from the likeliest
    card and confidence (for the threshold curve). ``across``: the frame's axis (0 x, 1 y)
    that runs along the upright photo's width (1 in a photo turned 90 or 270 degrees): a
    label's reach is measured along it, so a turned photo's cards are matched as upright."""
    w, h = size
    present = set(cards) | extra
    widths = [float(np.ptp(d[4][:, across])) for d in dets]
    reach = 0.45 * float(np.median(widths)) if widths else 0.0
    if thresh is not None:
        dets = [
            (d[0] if d[0] == "back" else (d[3] if d[1] >= thresh[1 if d[2] else 0] else None),) + tuple(d[1:])
            for d in dets
        ]
    outcomes = []
    for code, pts in cards.items():
        px = [(x * w, y * h) for x, y in pts]
        over = [d for d in dets if any(covers(d[4], p, reach=reach) for p in px)]
        if not pts:  # hand-read labels without places: found anywhere
            over = [d for d in dets if d[0] == code]
        # a detection whose own corner is another labelled card's is that card's, not this one's
        own = [d for d in over if d[0] in (code, None, "back") or d[0] not in present]
        if any(d[0] == code for d in over):
            d = next(d for d in over if d[0] == code)
            outcomes.append(("read", d[1], d[2]))
        elif any(d[0] not in (None, "back") for d in own):
            d = next(d for d in own if d[0] not in (None, "back"))
            outcomes.append(("wrong", d[1], d[2]))
        elif any(d[0] is None for d in own):
            d = next(d for d in own if d[0] is None)
            outcomes.append(("UU", d[1], d[2]))
        elif any(d[0] == "back" for d in own):
            outcomes.append(("back", 0.0, False))
        else:
            outcomes.append(("missing", 0.0, False))
    phantoms = [d for d in dets if d[0] not in (None, "back") and d[0] not in present]
    return outcomes, phantoms


def run(
    root: Path,
    groups: list[str],
    model,
    rotate: int,
    width: int | None,
    limit: int | None,
    curve: bool,
    light: tuple[float, float, float] | None = None,
) -> dict:
    """Read every frame of ``groups``; the figures per group (and the raw rows for ``--curve``)."""
    det = D.CardDetector(model)
    if curve:
        det.read_thresh = det.strip_thresh = 0.0
    names = label_names(root)
    across = 1 if rotate in (90, 270) else 0  # the upright photo's width runs along the frame's y
    report = {}
    for group in groups:
        c = Counter()
        lat = []
        rows = []  # (outcome dets, size, cards, extra) for the curve
        by_turn: dict = {}  # turn band (degrees) -> outcomes of the cards whose turn the labels give
        for i, (_stem, path, cards, extra) in enumerate(load_frames(root, group, names)):
            if limit and i >= limit:
                break
            frame = cv2.imread(str(path))
            if frame is None:
                print(f"  {path}: cannot be read, skipped", file=sys.stderr)
                continue
            frame = prepare(frame, rotate, width, light)
            cards = {k: [rotate_point(x, y, rotate) for x, y in v] for k, v in cards.items()}
            t0 = time.perf_counter()
            res = det.detect(frame)
            lat.append((time.perf_counter() - t0) * 1000)
            dets = []
            for cd in res.cards:
                if not cd.face_up:
                    dets.append(("back", cd.confidence, cd.strip, None, cd.quad))
                else:
                    likely = cd.card.code if cd.card is not None else None
                    dets.append((likely, cd.confidence, cd.strip, likely, cd.quad))
            size = (frame.shape[1], frame.shape[0])
            outcomes, phantoms = score_frame(cards, extra, dets, size, across=across)
            for o, _, _ in outcomes:
                c[o] += 1
            for (o, _, _), pts in zip(outcomes, cards.values()):
                turn = card_turn([(x * size[0], y * size[1]) for x, y in pts])
                band = next((b for b in TURN_BANDS if turn is not None and b[0] <= turn < b[1]), None)
                if band:
                    by_turn.setdefault(band, Counter())[o] += 1
            c["phantom"] += len(phantoms)
            c["backs"] += sum(d[0] == "back" for d in dets)
            c["columns given face-down cards"] += sum(1 for d in res.down if d)
            c["frames"] += 1
            rows.append((dets, size, cards, extra, across))
        report[group] = {"counts": c, "latency": lat, "rows": rows, "by_turn": by_turn}
    return report


CLOSE_ZOOMS = (1.2, 1.6, 2.4, 3.2, 4, 4.8, 5.6, 6.6)


def _in_window(quad: np.ndarray, box: tuple[int, int, int, int], whole: bool) -> bool:
    """Whether a card's quad lies wholly in ``box``, or (``whole`` False) at least partly,
    the quad grown by a fifth of its size first (a quad can be a little short of the card's
    edge, and a sliver of a card at the window's edge is read rightly). The photo's cards
    lie upright, a few touching the next: a quad read as a strip is taken down to a whole
    card's height (1.45 of its width)."""
    (lx, ly), (hx, hy) = quad.min(0), quad.max(0)
    hy = max(hy, ly + 1.45 * (hx - lx))
    if whole:
        return lx >= box[0] and hx <= box[2] and ly >= box[1] and hy <= box[3]
    gx, gy = 0.2 * (hx - lx), 0.2 * (hy - ly)
    return hx + gx >= box[0] and lx - gx <= box[2] and hy + gy >= box[1] and ly - gy <= box[3]


def _place(rng: np.random.Generator, lo: int, hi: int, top: int) -> int:
    """A window's start at random in lo..hi (where a card lies whole in it), kept in 0..top."""
    lo = min(max(0, lo), top)
    hi = min(max(lo, hi), top)
    return int(rng.integers(lo, hi + 1))


def close_up(root: Path, model, crops: int = 16, seed: int = 0) -> list[dict]:
    """A close camera: windows of the phone photo (``Gruppe17/saved.jpg``, 52 cards apart, 4:3)
    a zoom's share of its width, each placed at random where one card chosen at random lies
    whole in it, scaled to 1440x1080 and read by a fresh detector (as a camera's first
    frame). The truth is the full photo's own read, checked first against the hand-read
    labels (every card, none wrong); a card counts where it lies whole in the window, a
    read is wrong when it names no card even partly in it."""
    _, path, cards, _ = next(load_frames(root, "phone", []))
    photo = cv2.imread(str(path))
    if photo is None:
        return []
    want = set(cards)
    full = D.CardDetector(model).detect(photo)
    truth = [(cd.card.code, cd.quad) for cd in full.cards if cd.face_up and cd.card is not None]
    if {c for c, _ in truth} != want or len(truth) != len(want):
        print("close: the full phone photo does not read exactly; no truth to measure against", file=sys.stderr)
        return []
    H, W = photo.shape[:2]
    card_w = float(np.median([np.ptp(q[:, 0]) for _, q in truth]))
    rng = np.random.default_rng(seed)
    rows = []
    for zoom in CLOSE_ZOOMS:
        cw = int(W / zoom)
        ch = min(H, int(cw * 3 / 4))
        c = Counter()
        lat = []
        for _ in range(crops):
            _, q = truth[int(rng.integers(len(truth)))]
            lx, ly = q.min(0)
            hx = q[:, 0].max()
            hy = max(q[:, 1].max(), ly + 1.45 * (hx - lx))
            x0 = _place(rng, int(hx) - cw, int(lx), W - cw)
            y0 = _place(rng, int(hy) - ch, int(ly), H - ch)
            window = cv2.resize(photo[y0 : y0 + ch, x0 : x0 + cw], (1440, 1080), interpolation=cv2.INTER_AREA)
            det = D.CardDetector(model)
            t0 = time.perf_counter()
            res = det.detect(window)
            lat.append((time.perf_counter() - t0) * 1000)
            got = {cd.card.code for cd in res.cards if cd.face_up and cd.card is not None}
            box = (x0, y0, x0 + cw, y0 + ch)
            whole = {code for code, q in truth if _in_window(q, box, whole=True)}
            partly = {code for code, q in truth if _in_window(q, box, whole=False)}
            c["cards"] += len(whole)
            c["read"] += len(whole & got)
            c["wrong"] += len(got - partly)
        rows.append({"zoom": zoom, "card_share": card_w / cw, "counts": c, "latency": lat})
    return rows


def print_close(rows: list[dict]) -> None:
    for r in rows:
        c = r["counts"]
        print(
            f"close x{r['zoom']:g}: cards {100 * r['card_share']:.0f}% of the frame wide, {c['cards']} whole cards: "
            f"read {100 * c['read'] / max(1, c['cards']):.1f}%, wrong {c['wrong']}; "
            f"latency median {np.median(r['latency']):.0f} ms"
        )


def print_report(report: dict, curve: bool, turns: bool = False) -> None:
    for group, r in report.items():
        c, lat = r["counts"], r["latency"]
        n = sum(c[k] for k in ("read", "UU", "wrong", "back", "missing"))
        if not n:
            print(f"{group}: no labelled frames")
            continue
        wrong = c["wrong"] + c["phantom"]
        pct = lambda k, n=n: 100.0 * k / n  # noqa: E731
        print(
            f"{group}: {c['frames']} frames, {n} face-up cards: read {pct(c['read']):.1f}%, UU {pct(c['UU']):.1f}%, "
            f"wrong {pct(wrong):.2f}% ({c['wrong']} misread + {c['phantom']} phantom), back {pct(c['back']):.1f}%, "
            f"not found {pct(c['missing']):.1f}%; backs found {c['backs']}; columns given face-down cards "
            f"{c['columns given face-down cards']}/{7 * c['frames']}; "
            f"latency median {np.median(lat):.0f} ms, p90 {np.percentile(lat, 90):.0f} ms"
        )
        if turns:
            for (lo, hi), t in sorted(r["by_turn"].items()):
                k = sum(t.values())
                print(
                    f"   turned {lo}-{min(hi, 90)} degrees: {k} cards, read {100 * t['read'] / k:.1f}%, "
                    f"UU {100 * t['UU'] / k:.1f}%, wrong {t['wrong']}, back {100 * t['back'] / k:.1f}%, "
                    f"not found {100 * t['missing'] / k:.1f}%"
                )
        if curve:
            print_curve(r["rows"])


def print_curve(rows) -> None:
    """Cards read and wrong at candidate thresholds (one shared and split whole/strip)."""
    for t in (0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        for ts in (t,):
            c = Counter()
            for dets, size, cards, extra, across in rows:
                outcomes, phantoms = score_frame(cards, extra, dets, size, thresh=(t, ts), across=across)
                for o, _, _ in outcomes:
                    c[o] += 1
                c["phantom"] += len(phantoms)
            n = sum(c[k] for k in ("read", "UU", "wrong", "back", "missing"))
            print(
                f"   thresh {t:.2f}/{ts:.2f}: read {100 * c['read'] / n:.1f}%, UU {100 * c['UU'] / n:.1f}%, "
                f"wrong {c['wrong']} + {c['phantom']} phantom ({100 * (c['wrong'] + c['phantom']) / n:.2f}%)"
            )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", help="the real-photos folder (e.g. ../shared/realphotos)")
    ap.add_argument("--model", default=None, help="model folder (default: the shipped one)")
    ap.add_argument("--rotate", type=int, choices=(0, 90, 180, 270), default=0)
    ap.add_argument("--width", type=int, default=None, help="scale every frame to this width first")
    ap.add_argument(
        "--light",
        default=None,
        help="change every frame's light first: one factor (0.4: a dim room) or three for blue, green, red "
        "(0.3,0.45,0.6: a dim warm lamp)",
    )
    ap.add_argument("--groups", default="suit_3,suit_3_layouts,simple,simple_rotated,stacked,suit_1,suit_2,phone")
    ap.add_argument("--limit", type=int, default=None, help="at most this many frames a group")
    ap.add_argument("--curve", action="store_true", help="read with no threshold and print a threshold curve")
    ap.add_argument(
        "--turns",
        action="store_true",
        help="also split each group's cards by how far they lie turned (whole cards: four index corners labelled)",
    )
    ap.add_argument(
        "--close",
        action="store_true",
        help="also a close camera: windows of the phone photo where cards are 9-50%% of the frame wide",
    )
    ap.add_argument("--json", default=None, help="write the counts and latencies here")
    args = ap.parse_args(argv)
    root = Path(args.path)
    if not (root / EYE).is_dir():
        print(f"real_photos: no real photos at {str(root)!r} (see its README); nothing measured")
        return 0
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    bad = [g for g in groups if g not in GROUPS and g not in ("suit_3_layouts", "phone")]
    if bad:
        print(f"real_photos: error: unknown group {bad[0]!r}", file=sys.stderr)
        return 2
    light = None
    if args.light:
        try:
            vals = [float(v) for v in args.light.split(",")]
        except ValueError:
            vals = []
        if len(vals) not in (1, 3) or min(vals) <= 0:
            print(
                f"real_photos: error: --light must be one or three positive factors, not {args.light!r}",
                file=sys.stderr,
            )
            return 2
        light = tuple(vals * 3 if len(vals) == 1 else vals)
    t0 = time.time()
    report = run(root, groups, args.model, args.rotate, args.width, args.limit, args.curve, light)
    print(
        f"model {args.model or 'shipped'}, rotate {args.rotate}, width {args.width or 'as shot'}, "
        f"light {args.light or 'as shot'}, {time.time() - t0:.0f} s"
    )
    print_report(report, args.curve, args.turns)
    if args.close:
        print_close(close_up(root, args.model))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {g: {"counts": dict(r["counts"]), "latency_ms": r["latency"]} for g, r in report.items()}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
