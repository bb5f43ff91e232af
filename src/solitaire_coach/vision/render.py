"""Scene renderer: Klondike layouts photographed by a pretend camera, deterministic from a seed.

:func:`render_layout` draws a known :class:`TableLayout` and returns the image and the truth
(every visible card with its quad and slot). It is used to make training data, test
fixtures and recorded-game fixtures. Nothing here decides game rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..core.cards import FULL_DECK, Card
from ..core.notation import EMPTY, UNKNOWN, Snapshot
from .decks import FACE_H, FACE_W, DrawnDeck, available_decks, drawn_back, load_deck

ASPECT = FACE_H / FACE_W


@dataclass(frozen=True)
class TableLayout:
    """What lies on the table: per column the face-down count and face-up run (bottom to top),
    the visible waste cards (last is the top), the four foundation tops and the stock size."""

    down: tuple[int, ...]
    up: tuple[tuple[Card, ...], ...]
    waste: tuple[Card, ...] = ()
    foundations: tuple[Card | None, ...] = (None, None, None, None)
    stock: int = 0

    @staticmethod
    def from_state(state, waste_visible: int | None = None) -> TableLayout:
        """The layout of a :class:`solitaire_coach.core.state.GameState` (cards must be known
        where face up). ``waste_visible`` defaults to the draw count of its rules."""
        n = waste_visible if waste_visible is not None else getattr(state.rules, "draw_count", 1)
        waste = tuple(c for c in state.waste[-n:] if c is not None) if n else ()
        return TableLayout(
            down=tuple(len(h) for h in state.hidden),
            up=tuple(tuple(run) for run in state.faceup),
            waste=waste,
            foundations=tuple(state.foundation_top(s) for s in range(4)),
            stock=len(state.stock),
        )

    @staticmethod
    def random(rng: np.random.Generator) -> TableLayout:
        """A random layout with distinct visible cards (not necessarily a legal position)."""
        order = [FULL_DECK[i] for i in rng.permutation(52)]
        pos = 0

        def take(k):
            nonlocal pos
            out = tuple(order[pos : pos + k])
            pos += k
            return out

        down, up = [], []
        long_game = rng.random() < 0.5
        for i in range(7):
            d = int(rng.integers(0, i + 1)) if rng.random() < 0.8 else i
            if rng.random() < 0.1:
                d = 0
            k = int(rng.integers(0, 7 if long_game else 3)) if rng.random() < 0.92 else int(rng.integers(0, 12))
            if d > 0 and k == 0 and rng.random() < 0.7:
                k = 1
            down.append(d)
            up.append(take(k))
        nw = int(rng.choice([0, 1, 1, 1, 2, 3, 3]))
        waste = take(nw)
        found = tuple((take(1) or (None,))[0] if rng.random() < 0.55 else None for _ in range(4))
        stock = int(rng.integers(0, 24)) if rng.random() < 0.8 else 0
        return TableLayout(tuple(down), tuple(up), waste, found, stock)

    def snapshot(self) -> Snapshot:
        """The true 12-slot snapshot of this layout (a face-down column top reads ``UU``)."""
        slots = [self.waste[-1] if self.waste else EMPTY]
        slots += [c if c is not None else EMPTY for c in self.foundations]
        for d, run in zip(self.down, self.up):
            slots.append(run[-1] if run else (UNKNOWN if d else EMPTY))
        return Snapshot(tuple(slots), tuple(run or None for run in self.up))


@dataclass(frozen=True)
class TruthCard:
    """One visible card in a rendered scene: ``card`` None for a back; ``quad`` the visible part
    (tl, tr, br, bl in image pixels); ``corner`` the card's top-left corner, ``size`` its full
    width/height in px; ``visible`` False when a hand hides its corner index."""

    card: Card | None
    quad: np.ndarray
    full_quad: np.ndarray
    slot: str
    visible: bool = True


@dataclass(frozen=True)
class SceneTruth:
    """What a rendered scene really shows: its layout, the snapshot, every visible card, the
    deck and whether a hand is in it."""

    layout: TableLayout
    snapshot: Snapshot
    cards: list[TruthCard] = field(default_factory=list)
    deck: str = ""
    hand: bool = False


# ----------------------------------------------------------------------------- textures
def _table(rng, W, H) -> np.ndarray:
    kind = rng.integers(0, 6)
    hsv = np.array([rng.integers(0, 180), rng.integers(0, 256), rng.integers(20, 256)], np.uint8)
    if rng.random() < 0.25:  # light tables (white, beige, grey): the hard case
        hsv = np.array([rng.integers(0, 180), rng.integers(0, 50), rng.integers(180, 256)], np.uint8)
    base = cv2.cvtColor(hsv.reshape(1, 1, 3), cv2.COLOR_HSV2BGR).reshape(3).astype(np.float32)
    if kind == 0:
        img = np.ones((H, W, 3), np.float32) * base
    elif kind == 1:  # wood grain
        y = np.linspace(0, 1, H)[:, None]
        x = np.linspace(0, 1, W)[None, :]
        f = rng.uniform(20, 80)
        warp = cv2.resize(rng.normal(0, 1, (4, 6)).astype(np.float32), (W, H)) * rng.uniform(0.5, 3)
        g = 0.5 + 0.5 * np.sin((y * f + warp + x * rng.uniform(-3, 3)) * 2 * np.pi)
        g = g ** rng.uniform(0.5, 3)
        img = base * (0.75 + 0.3 * g[..., None].astype(np.float32))
    elif kind == 2:  # noise / felt / stone
        n = cv2.resize(rng.normal(0, 1, (H // 8, W // 8, 3)).astype(np.float32), (W, H))
        img = base + n * rng.uniform(5, 30) + rng.standard_normal((H, W, 1), dtype=np.float32) * rng.uniform(2, 12)
    elif kind == 3:  # cloth checks / stripes
        p = int(rng.integers(6, 60))
        yy, xx = np.arange(H)[:, None], np.arange(W)[None, :]
        m = ((yy // p + (xx // p if rng.random() < 0.6 else 0 * xx)) % 2).astype(np.float32)
        other = np.array(rng.integers(0, 256, 3), np.float32)
        img = base * (1 - m[..., None] * 0.5) + other * m[..., None] * 0.5
    elif kind == 4:  # large blotches (marble, patterned cloth)
        n = cv2.resize(rng.normal(0, 1, (6, 10)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
        other = np.array(rng.integers(0, 256, 3), np.float32)
        t = (np.tanh(n * 2) * 0.5 + 0.5)[..., None]
        img = base * (1 - t) + other * t
    else:  # random shapes (a busy tablecloth)
        img = np.ones((H, W, 3), np.float32) * base
        for _ in range(int(rng.integers(5, 40))):
            c = tuple(float(v) for v in rng.integers(0, 256, 3))
            cv2.circle(img, (int(rng.integers(0, W)), int(rng.integers(0, H))), int(rng.integers(5, 80)), c, -1)
    return np.clip(img, 0, 255).astype(np.uint8)


def _soft(m: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur done at a quarter of the size (fast, looks the same)."""
    h, w = m.shape[:2]
    small = cv2.resize(m, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, sigma / 4))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _round_mask(w: int, h: int, r: float) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    r = max(1, int(r))
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


# ----------------------------------------------------------------------------- geometry
@dataclass
class _Place:
    card: Card | None
    x: float
    y: float
    slot: str
    angle: float = 0.0
    cover_dx: float = 0.0  # how much of the card shows before the next card covers it
    cover_dy: float = 0.0


def _plan(layout: TableLayout, rng, W: int, H: int, steady: bool = False, askew: float = 0.0):
    """Card size and every card's top-left corner on the (unwarped) table. ``steady``: the
    card size does not depend on the layout (room for 6 face-down and 8 face-up cards in a
    column) and each card's small offset and turn depend only on its place (pile and
    position in it), so a card nobody touched stays where it was from layout to layout.
    ``askew``: the spread (degrees) of how far cards are turned on the table, beside the
    usual small one (a careless player's cards; at most 30 degrees either way)."""
    gap = rng.uniform(0.1, 0.45)
    dd = rng.uniform(0.07, 0.13)  # face-down offset / card height
    uu = rng.uniform(0.22, 0.31)  # face-up offset / card height
    rowgap = rng.uniform(0.1, 0.35)
    y0 = rng.uniform(0.02, 0.07) * H
    if steady:
        colf = 6 * dd + 7 * uu + 1
    else:
        colf = max((d * dd + max(len(u) - 1, 0) * uu + 1) for d, u in zip(layout.down, layout.up))
    w_h = (W * rng.uniform(0.88, 0.97)) / (7 + 6 * gap)
    w_v = (H * 0.985 - y0) / (ASPECT * (1 + rowgap + colf))
    w = min(w_h, w_v) * rng.uniform(0.8, 1.0)
    w = max(w, 30.0)
    h = w * ASPECT
    pitch = w * (1 + gap)
    x0 = (W - (6 * pitch + w)) / 2 + rng.uniform(-0.5, 0.5) * max(0.0, W - (6 * pitch + w) - 8) / 2
    y1 = y0 + h * (1 + rowgap)
    base = int(rng.integers(0, 1 << 30)) if steady else 0
    place_rng = rng

    def at(pile: int, index: int) -> None:  # steady: this place's own random numbers
        nonlocal place_rng
        if steady:
            place_rng = np.random.default_rng([base, pile, index])

    jit = lambda s: place_rng.normal(0, s * w)  # noqa: E731

    def ang() -> float:
        """A card's small turn on the table, and the askew spread's, at most 30 degrees."""
        turn = place_rng.normal(0, 1.2) + (place_rng.normal(0, askew) if askew else 0.0)
        return float(np.clip(turn, -30.0, 30.0))

    places: list[_Place] = []
    if layout.stock:
        for k in range(min(3, max(1, layout.stock // 8 + 1))):
            at(0, k)
            places.append(_Place(None, x0 + k * 1.5 + jit(0.01), y0 - k * 1.5, "stock", ang()))
    wx = x0 + pitch
    fan = rng.uniform(0.16, 0.24) * w
    for i, c in enumerate(layout.waste):
        at(1, i)
        places.append(
            _Place(
                c,
                wx + i * fan + jit(0.01),
                y0 + jit(0.01),
                "waste",
                ang(),
                cover_dx=fan if i < len(layout.waste) - 1 else 0,
            )
        )
    for f, c in enumerate(layout.foundations):
        if c is not None:
            at(2, f)
            places.append(_Place(c, x0 + (3 + f) * pitch + jit(0.015), y0 + jit(0.015), f"foundation {f + 1}", ang()))
    for col in range(7):
        at(3 + col, 0)
        x = x0 + col * pitch + jit(0.02)
        y = y1 + jit(0.01)
        n_down, run = layout.down[col], layout.up[col]
        total = n_down + len(run)
        k = 0
        for _ in range(n_down):
            k += 1
            at(3 + col, k)
            places.append(
                _Place(
                    None,
                    x + jit(0.006),
                    y,
                    f"column {col + 1}",
                    ang() * (1.0 if askew else 0.5),
                    cover_dy=dd * h if k < total else 0,
                )
            )
            y += dd * h
        for c in run:
            k += 1
            at(3 + col, k)
            places.append(
                _Place(
                    c,
                    x + jit(0.006),
                    y,
                    f"column {col + 1}",
                    ang() * (1.0 if askew else 0.5),
                    cover_dy=uu * h if k < total else 0,
                )
            )
            y += uu * h
    return w, h, places


def _plan_grid(rng, W, H):
    """All 52 cards face up in 4 rows (C D H S) of 13 (ace to king), as learn-deck wants."""
    gap = rng.uniform(0.05, 0.25)
    w = min(W * rng.uniform(0.9, 0.98) / (13 + 12 * gap), H * rng.uniform(0.85, 0.97) / (ASPECT * (4 + 3 * gap)))
    h = w * ASPECT
    x0 = (W - (13 * w + 12 * gap * w)) / 2
    y0 = (H - (4 * h + 3 * gap * h)) / 2
    places = []
    for suit in range(4):
        for rank in range(1, 14):
            places.append(
                _Place(
                    Card(rank, suit),
                    x0 + (rank - 1) * w * (1 + gap) + rng.normal(0, 0.02 * w),
                    y0 + suit * h * (1 + gap) + rng.normal(0, 0.02 * w),
                    "",
                    rng.normal(0, 1.5),
                )
            )
    return w, h, places


_NO_LAYOUT = TableLayout((0,) * 7, ((),) * 7)  # the grid's and the spread's: cards in no slot


def _plan_spread(rng, W, H, askew: float = 0.0):
    """Cards spread out as people sort or show a deck: rows fanned sideways (each card's
    left strip showing, 14-40% of its width, as a long waste fan or a row laid out to
    count) or long columns fanned down tightly (13-30% of the height), 2-8 of them, some
    rows of backs. Cards are distinct; each row or column is turned a little as a whole."""
    order = [FULL_DECK[i] for i in rng.permutation(52)]
    rows = rng.random() < 0.6
    n_lines = int(rng.integers(2, 6 if rows else 9))
    per = [int(rng.integers(3, 14)) for _ in range(n_lines)]
    while sum(per) > 52:
        per[int(np.argmax(per))] -= 1
    fan = rng.uniform(0.14, 0.4) if rows else rng.uniform(0.13, 0.3)
    gap = rng.uniform(0.05, 0.4)
    longest = max(per)
    if rows:  # card widths: (longest - 1) fans and a card across, the lines' heights down
        w = min(W * 0.95 / ((longest - 1) * fan + 1), H * 0.95 / (ASPECT * (n_lines + (n_lines - 1) * gap)))
    else:
        w = min(W * 0.95 / (n_lines + (n_lines - 1) * gap), H * 0.95 / (ASPECT * ((longest - 1) * fan + 1)))
    w = max(w * rng.uniform(0.65, 1.0), 30.0)
    h = w * ASPECT
    step = fan * (w if rows else h)
    across = (n_lines * (h if rows else w)) * (1 + gap) - gap * (h if rows else w)
    along = (longest - 1) * step + (w if rows else h)
    span_x, span_y = (along, across) if rows else (across, along)
    ox = (W - span_x) / 2 + rng.uniform(-0.3, 0.3) * max(0.0, W - span_x)
    oy = (H - span_y) / 2 + rng.uniform(-0.3, 0.3) * max(0.0, H - span_y)
    places, pos = [], 0
    for line, k in enumerate(per):
        backs = rows and rng.random() < 0.12
        turn = rng.normal(0, 1.5) + (rng.normal(0, askew) if askew else 0.0)
        a = np.deg2rad(turn)
        ux, uy = (np.cos(a), np.sin(a)) if rows else (-np.sin(a), np.cos(a))  # along the line
        bx = ox + (0 if rows else line * w * (1 + gap))
        by = oy + (line * h * (1 + gap) if rows else 0)
        for i in range(k):
            card = None if backs else order[pos]
            pos += 0 if backs else 1
            last = i == k - 1
            places.append(
                _Place(
                    card,
                    bx + i * step * ux + rng.normal(0, 0.008 * w),
                    by + i * step * uy + rng.normal(0, 0.008 * w),
                    "",
                    float(np.clip(turn + rng.normal(0, 0.6), -30.0, 30.0)),
                    cover_dx=step if rows and not last else 0,
                    cover_dy=step if not rows and not last else 0,
                )
            )
    return w, h, places


def render_spread(
    seed: int,
    deck: str | None = None,
    width: int = 1280,
    height: int = 720,
    difficulty: float = 0.6,
    askew: float = 0.0,
):
    """A photo of cards spread in rows fanned sideways or long tight columns (see
    :func:`_plan_spread`): for training the locator on the strips such fans show."""
    return render_layout(_NO_LAYOUT, seed, width, height, deck, difficulty=difficulty, askew=askew, _spread=True)


def render_grid(seed: int, deck: str | None = None, width: int = 1920, height: int = 1080, difficulty: float = 0.6):
    """A photo of all 52 cards in a 4 x 13 grid (rows C D H S, ace to king), for learn-deck."""
    return render_layout(_NO_LAYOUT, seed, width, height, deck, difficulty=difficulty, _grid=True)


def _homography(rng, W, H, strength):
    src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    d = rng.uniform(-strength, strength, (4, 2)) * np.float32([W, H])
    if rng.random() < 0.5:  # a tilted camera: the far edge looks narrower
        t = rng.uniform(0, strength) * W
        d[0, 0] += t
        d[1, 0] -= t
    dst = (src + d).astype(np.float32)
    # keep the table filling the frame: scale the warped corners about the centre
    c = np.float32([W / 2, H / 2])
    dst = c + (dst - c) * rng.uniform(1.0, 1.08)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def _apply_h(Hm, pts):
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(p, Hm).reshape(-1, 2)


# ----------------------------------------------------------------------------- render
def varied_back(rng: np.random.Generator) -> np.ndarray:
    """A card back of any kind a person may own, drawn by our code: plain or patterned,
    dark (black, navy, bottle green, maroon) or light, with a white border, a thin one or
    none (printed to the edge)."""
    W, H = FACE_W, FACE_H
    dark = rng.random() < 0.5
    colour = tuple(int(v) for v in (rng.integers(0, 60, 3) if dark else rng.integers(20, 235, 3)))
    if rng.random() < 0.6:
        art = drawn_back(int(rng.integers(0, 64)), colour)
    else:  # plain, perhaps with a faint weave or a simple frame line
        art = np.empty((H, W, 3), np.uint8)
        art[:] = colour
        if rng.random() < 0.5:
            noise = rng.normal(0, rng.uniform(2, 10), (H, W, 1))
            art = np.clip(art + noise, 0, 255).astype(np.uint8)
        if rng.random() < 0.4:
            m = int(rng.integers(6, 16))
            line = tuple(int(v) for v in rng.integers(120, 256, 3))
            cv2.rectangle(art, (m, m), (W - 1 - m, H - 1 - m), line, int(rng.integers(1, 4)))
    border = rng.choice(["white", "thin", "none"], p=[0.45, 0.2, 0.35])
    if border == "none":
        inner = art[8:-8, 8:-8]
        art = cv2.resize(inner, (W, H), interpolation=cv2.INTER_LINEAR)
    elif border == "thin":
        art = art.copy()
        inner = cv2.resize(art[8:-8, 8:-8], (W - 6, H - 6), interpolation=cv2.INTER_LINEAR)
        art[:] = 245
        art[3:-3, 3:-3] = inner
    return art


def _dark_mat(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    """A dark playing mat or table: black, charcoal, dark green, navy or brown, a little
    texture."""
    base = np.array([rng.integers(0, 50), rng.integers(0, 60), rng.integers(0, 50)], np.float32)
    n = cv2.resize(rng.normal(0, 1, (H // 8, W // 8, 1)).astype(np.float32), (W, H))[..., None]
    img = base + n * rng.uniform(1, 6) + rng.standard_normal((H, W, 1), dtype=np.float32) * rng.uniform(1, 5)
    return np.clip(img, 0, 255).astype(np.uint8)


def _pick_back(rng, deck):
    b = deck.back() if rng.random() < 0.6 else None
    if b is None:
        b = drawn_back(int(rng.integers(0, 64)), tuple(int(v) for v in rng.integers(10, 230, 3)))
    return b


def render_layout(
    layout: TableLayout,
    seed: int,
    width: int = 1280,
    height: int = 720,
    deck: str | None = None,
    hand: bool = False,
    difficulty: float = 1.0,
    _grid: bool = False,
    _spread: bool = False,
    steady: bool = False,
    variety: float = 0.0,
    askew: float | None = None,
):
    """Render ``layout`` as a camera frame. Returns ``(image_bgr, SceneTruth)``.

    ``deck`` names a deck (``drawn-N`` or a rasterised folder, see :mod:`.decks`); None
    draws one of our own decks chosen by the seed. ``difficulty`` (0..1) scales the
    camera and lighting effects.

    By default every picture is a new photograph: card size, camera, framing and light
    follow the seed *and* the layout. ``steady=True`` is a camera on a stand over one
    table through a game: for one seed, the cloth, camera, framing and light are the same
    for every layout, and a card that was not moved lies at the same pixels (cards are
    sized for columns of up to 6 face-down and 8 face-up cards; longer ones run off the
    bottom of the picture, as they would under a real camera). No hand is drawn then
    (paint one over the picture).

    ``variety`` (0..1, for training): the chance of each of the things a person's own table
    may show beyond the usual: a back of any kind (:func:`varied_back`), a dark mat, cards
    lying askew (up to 30 degrees). Its draws have their own random stream, so a scene with
    ``variety`` 0 is the same as ever. ``askew`` (degrees, for benchmarks) sets the spread
    of the cards' turns for every scene instead (each card's turn is clipped to 30 degrees).
    """
    rng = np.random.default_rng(seed)
    more = np.random.default_rng([seed, 31337])
    varied_backs = more.random() < 0.7 * variety
    dark_mat = more.random() < 0.3 * variety
    spread = float(more.uniform(6, 18)) if more.random() < 0.4 * variety else 0.0
    askew = spread if askew is None else float(askew)
    W, H = width, height
    d = load_deck(deck) if deck is not None else DrawnDeck(int(rng.integers(0, 12)))
    back = _pick_back(rng, d)
    if varied_backs:
        back = varied_back(more)
    img = _table(rng, W, H).astype(np.float32)
    if dark_mat:
        img = _dark_mat(more, W, H).astype(np.float32)
    if _grid:
        w, h, places = _plan_grid(rng, W, H)
    elif _spread:
        w, h, places = _plan_spread(rng, W, H, askew)
    else:
        w, h, places = _plan(layout, rng, W, H, steady, askew)
    hand = hand and not steady
    iw, ih = int(round(w)), int(round(h))
    mask = _round_mask(iw, ih, w * rng.uniform(0.03, 0.07)).astype(np.float32) / 255.0
    edge = rng.random() < 0.5
    shadow = rng.random() < 0.6 * difficulty
    sdx, sdy = rng.uniform(-0.03, 0.05, 2) * w
    faces: dict = {}
    quads: list[tuple[_Place, np.ndarray, np.ndarray]] = []
    occ = np.zeros((H, W), np.uint8)  # index of the card on top at each pixel (+1)
    for n, pl in enumerate(places):
        if pl.card is None:
            art = back
        else:
            art = faces.get(pl.card)
            if art is None:
                art = faces[pl.card] = d.face(pl.card)
        art = cv2.resize(art, (iw, ih), interpolation=cv2.INTER_AREA).astype(np.float32)
        if edge:
            cv2.rectangle(art, (0, 0), (iw - 1, ih - 1), (150, 150, 150), 1)
        a = np.deg2rad(pl.angle)
        M = np.float32([[np.cos(a), -np.sin(a), pl.x], [np.sin(a), np.cos(a), pl.y]])
        corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        full = corners @ M[:, :2].T + M[:, 2]
        vis = (
            np.float32([[0, 0], [pl.cover_dx or w, 0], [pl.cover_dx or w, pl.cover_dy or h], [0, pl.cover_dy or h]])
            @ M[:, :2].T
            + M[:, 2]
        )
        x0, y0 = np.floor(full.min(0)).astype(int) - 2
        x1, y1 = np.ceil(full.max(0)).astype(int) + 2
        x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1c <= x0c or y1c <= y0c:
            continue
        Ml = M.copy()
        Ml[:, 2] -= (x0c, y0c)
        size = (x1c - x0c, y1c - y0c)
        warped = cv2.warpAffine(art, Ml, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        am = cv2.warpAffine(mask, Ml, size, flags=cv2.INTER_LINEAR)[..., None]
        roi = img[y0c:y1c, x0c:x1c]
        if shadow:
            Ms = Ml.copy()
            Ms[:, 2] += (sdx, sdy)
            sm = cv2.GaussianBlur(cv2.warpAffine(mask, Ms, size), (0, 0), max(1.0, w * 0.02))[..., None]
            roi *= 1 - 0.35 * sm * (1 - am)
        roi[:] = roi * (1 - am) + warped * am
        occ[y0c:y1c, x0c:x1c][am[..., 0] > 0.5] = n + 1
        quads.append((pl, full, vis))
    # a hand or arm over part of the table
    hand_mask = None
    if hand:
        hand_mask = np.zeros((H, W), np.float32)
        side = rng.integers(0, 3)
        tip = np.array([rng.uniform(0.15, 0.85) * W, rng.uniform(0.25, 0.8) * H])
        base = {
            0: (tip[0] + rng.uniform(-0.2, 0.2) * W, H * 1.1),
            1: (-0.1 * W, tip[1] + rng.uniform(-0.2, 0.2) * H),
            2: (W * 1.1, tip[1] + rng.uniform(-0.2, 0.2) * H),
        }[int(side)]
        cv2.line(
            hand_mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 1.0, int(w * rng.uniform(0.7, 1.1))
        )
        cv2.ellipse(
            hand_mask,
            tuple(int(v) for v in tip),
            (int(w * 0.55), int(w * 0.7)),
            float(np.degrees(np.arctan2(tip[1] - base[1], tip[0] - base[0]))) + 90,
            0,
            360,
            1.0,
            -1,
        )
        hand_mask = cv2.GaussianBlur(hand_mask, (0, 0), 2)
        skin = np.array([rng.uniform(60, 170), rng.uniform(100, 190), rng.uniform(150, 240)], np.float32)
        shade = _soft(hand_mask, w * 0.2)[..., None]
        img = img * (1 - hand_mask[..., None]) + (skin * (0.6 + 0.4 * shade)) * hand_mask[..., None]
    # camera: perspective (and the truth follows it)
    Hm = _homography(rng, W, H, 0.05 * difficulty)
    # the photographer frames the whole layout: zoom out until every card is in the frame
    allc = np.concatenate([q[1] for q in quads]) if quads else np.zeros((0, 2))
    if steady:  # framed once for the whole game: the table's area, whatever lies on it
        allc = np.float32([[0.02 * W, 0.02 * H], [0.98 * W, 0.02 * H], [0.98 * W, 0.985 * H], [0.02 * W, 0.985 * H]])
    if len(allc):
        pc = _apply_h(Hm, allc)
        m = 0.01 * W
        lo, hi = pc.min(0), pc.max(0)
        f = min(
            1.0, (W / 2 - m) / max(W / 2 - lo[0], hi[0] - W / 2, 1), (H / 2 - m) / max(H / 2 - lo[1], hi[1] - H / 2, 1)
        )
        if f < 1.0:
            S = np.array([[f, 0, W / 2 * (1 - f)], [0, f, H / 2 * (1 - f)], [0, 0, 1]])
            Hm = S @ Hm
    img = cv2.warpPerspective(img, Hm, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # light: uneven illumination, colour cast, glare, a soft shadow
    field_ = cv2.resize(rng.uniform(0.55, 1.2, (3, 4)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    gain = rng.uniform(0.8, 1.15, 3).astype(np.float32)
    lit = 1 - difficulty * (1 - field_)
    img = img * lit[..., None] * gain
    if rng.random() < 0.35 * difficulty:
        g = np.zeros((H, W), np.float32)
        cv2.circle(g, (int(rng.uniform(0, W)), int(rng.uniform(0, H))), int(rng.uniform(0.05, 0.2) * W), 1.0, -1)
        g = _soft(g, rng.uniform(0.03, 0.1) * W)
        img += g[..., None] * rng.uniform(60, 200)
    if rng.random() < 0.35 * difficulty:
        poly = (rng.uniform(0, 1, (4, 2)) * [W, H]).astype(np.int32)
        s = np.zeros((H, W), np.float32)
        cv2.fillPoly(s, [poly], 1.0)
        s = _soft(s, rng.uniform(5, 40))
        img *= 1 - s[..., None] * rng.uniform(0.2, 0.5)
    img = np.clip(img, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.3 * difficulty:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    elif r < 0.4 * difficulty:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if difficulty > 0:
        noise = rng.standard_normal((H, W, 1), dtype=np.float32) * np.float32(rng.uniform(0, 7) * difficulty)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        q = int(rng.uniform(45, 95))
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    # truth
    truth_cards = []
    for pl, full, vis in quads:
        fq = _apply_h(Hm, full).astype(np.float32)
        vq = _apply_h(Hm, vis).astype(np.float32)
        visible = True
        if hand_mask is not None:
            # the corner index region, in table coordinates
            cx0, cy0 = full[0]
            x_a, y_a = int(max(cx0, 0)), int(max(cy0, 0))
            reg = hand_mask[y_a : int(cy0 + 0.28 * h), x_a : int(cx0 + 0.25 * w)]
            visible = not (reg.size and reg.mean() > 0.15)
        truth_cards.append(TruthCard(pl.card, vq, fq, pl.slot, visible))
    return img, SceneTruth(layout, layout.snapshot(), truth_cards, getattr(d, "name", ""), hand)


def lens_distort(img: np.ndarray, truth: SceneTruth, k: float) -> tuple[np.ndarray, SceneTruth]:
    """Radial lens distortion (``k`` < 0 barrel, > 0 pincushion) of a rendered frame and its truth.

    A point at normalised radius r from the centre (r = 1 at the frame's corner) moves to
    r * (1 + k r^2); the image is resampled with the inverse map."""
    H, W = img.shape[:2]
    c = np.array([W / 2, H / 2], np.float64)
    norm = float(np.hypot(W / 2, H / 2))
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = np.stack([xx - c[0], yy - c[1]], -1) / norm  # distorted (output) positions
    # the undistorted source of each output pixel: solve r_u (1 + k r_u^2) = r_d by iteration
    rd = np.sqrt((d**2).sum(-1))
    ru = rd.copy()
    for _ in range(6):
        ru = rd / (1 + k * ru**2)
    f = np.where(rd > 1e-9, ru / np.maximum(rd, 1e-9), 1.0)[..., None]
    src = (d * f * norm + c).astype(np.float32)
    out = cv2.remap(img, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def fwd(q):
        p = (np.asarray(q, np.float64) - c) / norm
        r2 = (p**2).sum(-1, keepdims=True)
        return (p * (1 + k * r2) * norm + c).astype(np.float32)

    cards = [TruthCard(t.card, fwd(t.quad), fwd(t.full_quad), t.slot, t.visible) for t in truth.cards]
    return out, SceneTruth(truth.layout, truth.snapshot, cards, truth.deck, truth.hand)


def table_edge(img: np.ndarray, truth: SceneTruth, rng: np.random.Generator) -> tuple[np.ndarray, SceneTruth]:
    """The table seen inside a wider frame: shrink the rendered table and put it on a band
    (the floor or the table's edge) on some sides, as a camera set up for play sees it."""
    H, W = img.shape[:2]
    left, right, top, bottom = (rng.uniform(0, 0.08, 4) * rng.integers(0, 2, 4)) * [W, W, H, H]
    if left + right + top + bottom < 4:
        top = 0.05 * H
    iw, ih = int(round(W - left - right)), int(round(H - top - bottom))
    inner = cv2.resize(img, (iw, ih), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        band = np.full((H, W, 3), np.median(img[:8].reshape(-1, 3), axis=0) * rng.uniform(0.3, 0.9), np.float32)
    else:
        band = _table(rng, W, H).astype(np.float32) * rng.uniform(0.3, 1.0)
    band += rng.standard_normal((H, W, 1), dtype=np.float32) * 3
    out = np.clip(band, 0, 255).astype(np.uint8)
    x0, y0 = int(round(left)), int(round(top))
    out[y0 : y0 + ih, x0 : x0 + iw] = inner
    sx, sy = iw / W, ih / H

    def mv(q):
        return (np.asarray(q, np.float32) * [sx, sy] + [x0, y0]).astype(np.float32)

    cards = [TruthCard(t.card, mv(t.quad), mv(t.full_quad), t.slot, t.visible) for t in truth.cards]
    return out, SceneTruth(truth.layout, truth.snapshot, cards, truth.deck, truth.hand)


def _deck_pool(decks: list[str] | None) -> list[str]:
    """The designs a random scene chooses from: ``decks``, or our first drawn ones and every
    rasterised deck present."""
    return decks if decks is not None else [f"drawn-{i}" for i in range(12)] + available_decks()


def render_random(
    seed: int,
    width: int = 1280,
    height: int = 720,
    decks: list[str] | None = None,
    hand_p: float = 0.15,
    difficulty: float | None = None,
    grid_p: float = 0.0,
    spread_p: float = 0.0,
    lens_p: float = 0.5,
    edge_p: float = 0.3,
    variety: float = 0.0,
    askew: float | None = None,
):
    """A random layout, deck and camera; ``decks`` restricts the deck choice. With chance
    ``lens_p`` the lens distorts the frame (barrel or pincushion), with chance ``edge_p`` the
    table lies on a band (its edge or the floor) inside the frame. ``variety`` (for
    training, see :func:`render_layout`) also makes a fresh deal in a fifth of its share of
    the scenes (a full stock, seven column tops over 0..6 face-down cards); ``askew`` see
    :func:`render_layout`. ``spread_p``: the chance (its own random stream, so the other
    scenes stay as they were) of a spread of cards instead (:func:`render_spread`)."""
    rng = np.random.default_rng(seed + 7919)
    cam = np.random.default_rng(seed + 104729)  # its own stream: the other draws stay as they were
    if grid_p and rng.random() < grid_p:
        pool = _deck_pool(decks)
        return render_grid(seed, pool[int(rng.integers(0, len(pool)))], width, height, float(rng.uniform(0.3, 1.0)))
    if spread_p and np.random.default_rng([seed, 5151]).random() < spread_p:  # own stream: others unchanged
        pool = _deck_pool(decks)
        spread_askew = float(cam.uniform(4, 14)) if cam.random() < 0.3 else 0.0
        img, truth = render_spread(
            seed, pool[int(rng.integers(0, len(pool)))], width, height, float(rng.uniform(0.3, 1.0)), spread_askew
        )
        if cam.random() < lens_p:
            img, truth = lens_distort(img, truth, float(cam.uniform(-0.15, 0.1)))
        return img, truth
    layout = TableLayout.random(rng)
    if variety and np.random.default_rng([seed, 4242]).random() < 0.2 * variety:
        from ..core.state import GameState, deal_for_seed

        layout = TableLayout.from_state(GameState.from_deal(deal_for_seed(seed)), waste_visible=0)
    pool = _deck_pool(decks)
    deck = pool[int(rng.integers(0, len(pool)))]
    diff = float(rng.uniform(0.3, 1.0)) if difficulty is None else difficulty
    img, truth = render_layout(
        layout,
        seed,
        width,
        height,
        deck,
        hand=bool(rng.random() < hand_p),
        difficulty=diff,
        variety=variety,
        askew=askew,
    )
    if cam.random() < edge_p:
        img, truth = table_edge(img, truth, cam)
    if cam.random() < lens_p:
        img, truth = lens_distort(img, truth, float(cam.uniform(-0.15, 0.1)))
    return img, truth
