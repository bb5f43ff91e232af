"""Frame -> every visible card -> 12-slot snapshot.

Two small ONNX networks run by onnxruntime (see ``models/README.md``):

1. the *locator* marks the top-left corner of every visible card, face up or back,
   whole or a fanned strip, on the frame scaled to 640 px wide;
2. the *reader* looks at the corner index patch of each mark and says face / back /
   not-a-card, and the rank and suit. A read below the calibrated confidence gives an
   unreadable card (``UU`` in the snapshot), never a guess.

Slots come from the cards' positions (top row: stock, waste, gap, four foundations;
below: seven columns), or from a camera calibration when one is given. Nothing here
knows the rules of the game.
"""

from __future__ import annotations

import functools
import json
import math
import os
import statistics
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..core.cards import RED_SUITS, Card
from ..core.notation import EMPTY, UNKNOWN, Snapshot
from ..repo import repo_root
from ..userdata import user_decks_dir
from . import features as F
from . import pips as P
from . import strips as ST
from .deckreader import DeckReader, load_reader

SLOT_ORDER = ("waste", "foundation 1", "foundation 2", "foundation 3", "foundation 4") + tuple(
    f"column {i}" for i in range(1, 8)
)


def default_model_dir() -> Path:
    """The shipped ``models/``, or ``SOLITAIRE_MODELS`` when set (set but empty counts as unset)."""
    return Path(os.environ.get("SOLITAIRE_MODELS") or repo_root() / "models")


def deck_dir(name: str) -> Path:
    """Where learn-deck keeps deck ``name``: ``decks/`` of the per-user data folder (see
    :mod:`solitaire_coach.userdata`); ``SOLITAIRE_DECK_REFS`` names another folder."""
    base = os.environ.get("SOLITAIRE_DECK_REFS")
    return (Path(base) if base else user_decks_dir()) / name


@dataclass(frozen=True)
class CardDetection:
    """One card seen: ``card`` None for a back (or, with ``face_up`` True, an unreadable face);
    ``quad`` the visible part (tl, tr, br, bl; 4x2 float32 image px); ``slot`` e.g. ``column 3``."""

    card: Card | None
    quad: np.ndarray
    confidence: float
    slot: str
    face_up: bool = True
    strip: bool = False  # read from the strip a covering card leaves (one corner only)

    @property
    def code(self) -> str:
        """``7S``, ``back`` or ``UU``."""
        if self.card is not None:
            return self.card.code
        return "UU" if self.face_up else "back"


@dataclass(frozen=True)
class DetectionResult:
    """What one frame showed: the 12-slot snapshot, every card seen and the time it took."""

    snapshot: Snapshot
    cards: list[CardDetection]
    elapsed_ms: float
    # face-down cards seen in each column (1..7): the backs above its face-up run; a column
    # whose face-down strips are hidden or out of the picture counts what is seen
    down: tuple[int, ...] = (0,) * 7
    # whether a face-down pile was seen where the stock lies
    stock_seen: bool = False
    # the share of the face-up cards read sure (at the model's own thresholds): low on a
    # deck whose design the reader does not know; None with fewer than UNFAMILIAR_MIN_CARDS
    sure_share: float | None = None

    def stock_reading(self, pile_seen_before: bool = False) -> bool | None:
        """What this picture says of the stock (the live coach's stock hint): True (a
        pile) where a face-down pile was found in the stock's place; False (empty) where
        none was found but ``pile_seen_before`` (this camera found the pile there in an
        earlier picture of the table, so it finds this deck's back there); else None (not
        read). Measured by ``bench/stock_down_bench.py``: a pile found is nearly always
        there (184/184 along rendered games, 104/105 on held-out designs), but none found
        means an empty stock only for a deck the locator knows (28/28, against 33/45)."""
        if self.stock_seen:
            return True
        return False if pile_seen_before else None

    def to_json(self) -> dict:
        """The result as plain JSON values (the ``detect --json`` output)."""
        return {
            "snapshot": self.snapshot.line(),
            "runs": self.snapshot.text().splitlines()[1][6:] if self.snapshot.runs is not None else None,
            "down": list(self.down),
            "stock": self.stock_seen,
            "sure_share": None if self.sure_share is None else round(self.sure_share, 3),
            "cards": [
                {
                    "card": c.code,
                    "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in c.quad],
                    "confidence": round(float(c.confidence), 4),
                    "slot": c.slot,
                }
                for c in self.cards
            ],
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


@dataclass
class _Mark:
    x: float
    y: float
    w: float
    h: float
    score: float
    kind: int = 2  # 0 face, 1 back, 2 none
    card: Card | None = None
    conf: float = 0.0
    slot: str = ""
    right: float | None = None  # where the next card covers this one (x), if it does
    bottom: float | None = None  # likewise (y)
    strip: bool = False  # covered by another mark: read at one corner only
    quad: np.ndarray | None = None  # set when read in a turned frame: the quad in the frame as given
    angle: float = 0.0  # how far the card is turned on the table (radians, its top edge; + clockwise)
    likely: Card | None = None  # the likeliest card of a face left UU (for the familiar-deck rule)
    belief: np.ndarray | None = None  # its 52 card probabilities (see _read_card)
    model_belief: np.ndarray | None = None  # with a learnt deck: the shipped model's own
    face: float = 0.0  # how sure it is a card's face (conf is that times the likeliest card's)
    how: str = ""  # which step read its card (corners, top right, pips, strip, turned, askew, familiar, elsewhere)
    faint: bool = False  # a rows-locator mark under its sure score: kept only where read (RowsRule)

    def axes(self, zoom: float = 1.0) -> tuple[tuple[float, float], tuple[float, float]]:
        """The card's width and height vectors (image px), times ``zoom``."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        return (zoom * self.w * c, zoom * self.w * s), (-zoom * self.h * s, zoom * self.h * c)

    def far_corner(self) -> tuple[float, float]:
        """The card's bottom-right corner (where its index shows upside down)."""
        (ux, uy), (vx, vy) = self.axes()
        return self.x + ux + vx, self.y + uy + vy


class ModelError(RuntimeError):
    """A model folder that cannot be used; the message names the file and what is wrong
    (missing, not an ONNX model, not the expected model, a bad ``vision.json``)."""


class FrameError(ValueError):
    """A frame the detector cannot read; the message says what it is and what is wanted."""


def lift_exposure(frame_bgr: np.ndarray) -> np.ndarray:
    """``frame_bgr`` as it is where it is lit well enough, else brightened by one gain for
    the whole frame so that its brightest 0.5% of pixels reach :data:`LIFTED_BRIGHTEST`
    (a camera in a dim room whose exposure does not make up for it: the detector's networks
    only ever saw cards whose paper is near white)."""
    grey = cv2.cvtColor(frame_bgr[::4, ::4], cv2.COLOR_BGR2GRAY)
    if not grey.size:
        return frame_bgr
    level = float(np.percentile(grey, 99.5))  # the brightest 0.5%: the cards' paper
    if level >= DIM_BRIGHTEST:
        return frame_bgr
    # one gain for all three channels: balancing the paper's colour to grey as well read the
    # real photos worse (stacked rows 96.2 -> 87.5%, suit_2 1.4% wrong; bench/RESULTS.md, stop 70)
    return cv2.convertScaleAbs(frame_bgr, alpha=min(MAX_LIFT, LIFTED_BRIGHTEST / max(level, 1.0)))


def check_frame(frame) -> None:
    """Raise :class:`FrameError` unless ``frame`` is a colour picture as OpenCV gives one:
    an H x W x 3 uint8 (BGR) array with at least one pixel."""
    want = "a BGR picture (an H x W x 3 uint8 array, as cv2.imread gives)"
    if not isinstance(frame, np.ndarray):
        raise FrameError(
            f"the frame must be {want}, not {'None (no picture)' if frame is None else type(frame).__name__}"
        )
    what = f"a {frame.shape} {frame.dtype} array"
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        why = "a grey picture: convert it with cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)"
    elif frame.ndim == 3 and frame.shape[2] == 4:
        why = "4 channels: drop the alpha with cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)"
    elif frame.ndim != 3 or frame.shape[2] != 3:
        why = "not a picture of 3 colour channels"
    elif frame.shape[0] == 0 or frame.shape[1] == 0:
        why = "an empty picture"
    elif frame.dtype != np.uint8:
        why = "its values must be 0..255 bytes (uint8)"
    else:
        return
    raise FrameError(f"the frame must be {want}, not {what}: {why}")


# model file -> (what it is, the one input it takes)
MODEL_FILES = {"card_locator.onnx": ("card locator", "image"), "card_reader.onnx": ("card reader", "patch")}
_NUMBER_SETTINGS = (
    "peak_thresh",
    "read_thresh",
    "read_thresh_strip",
    "none_thresh",
    "back_sure",
    "ref_temp",
    "zoom",
    "model_pow",
    "read_thresh_learnt",
    "read_thresh_strip_learnt",
    "agreed_rank",
    "far_sure",
    "far_share",
)
# the settings that are probabilities (thresholds on the networks' outputs): 0 to 1
_PROBABILITY_SETTINGS = (
    "agreed_rank",
    "far_sure",
    "far_share",
    "peak_thresh",
    "read_thresh",
    "read_thresh_strip",
    "none_thresh",
    "back_sure",
    "read_thresh_learnt",
    "read_thresh_strip_learnt",
)
# the other numbers: (lowest allowed, whether the lowest itself is allowed, what it is)
_NUMBER_RANGES = {
    "ref_temp": (0.0, False, "a temperature"),
    "zoom": (1.0, True, "a patch scale"),
    "model_pow": (0.0, True, "a power"),
}
_CHOICE_SETTINGS = {"conf_mode": ("prob", "margin"), "combine": ("product", "min")}


class ModelSessions:
    """onnxruntime sessions kept for reuse: loading a model costs far more than a read, and
    one session serves any number of detectors (its ``run`` is thread-safe).

    A session is kept under the model file's resolved path and the thread count, with the
    file's size and modification time: a file replaced since gives a new session."""

    def __init__(self) -> None:
        self._sessions: dict[tuple, tuple] = {}  # (path, threads) -> ((size, mtime), session)

    def get(self, path: Path, threads: int):
        """The session of model file ``path`` (made now if there is none for it as it is)."""
        st = path.stat()
        key, stamp = (path.resolve(), threads), (st.st_size, st.st_mtime_ns)
        kept = self._sessions.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        session = _session(path, threads)
        self._sessions[key] = (stamp, session)
        return session

    def clear(self) -> None:
        """Forget every session."""
        self._sessions.clear()


SESSIONS = ModelSessions()
"""The sessions a :class:`CardDetector` uses when given none (see :class:`ModelSessions`)."""


def _file_digest(path: Path) -> str:
    """A short SHA-256 of a file's bytes (which model file a learnt deck was made with)."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _load_model(path: Path, threads: int, sessions: ModelSessions, what: str | None = None, want: str | None = None):
    """The onnxruntime session of ``path`` from ``sessions``, checked to be the model its name
    says (or the ``what`` model, taking input ``want``, when given)."""
    if what is None:
        what, want = MODEL_FILES[path.name]
    if not path.is_file():
        raise ModelError(f"{path}: missing (a model folder holds {' and '.join(MODEL_FILES)})")
    try:
        session = sessions.get(path, threads)
    except Exception as exc:  # onnxruntime's own types: InvalidProtobuf, InvalidGraph, Fail, ...
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{path}: not an ONNX model that can be loaded ({detail})") from None
    got = [i.name for i in session.get_inputs()]
    if got != [want]:
        raise ModelError(
            f"{path}: not the expected model: its inputs are {got}, the {what} takes [{want!r}] "
            "(are the two model files swapped?)"
        )
    return session


def _in_folder(name) -> bool:
    """Whether vision.json's ``name`` for a model file is a file name in the model folder
    (a string with no path separator)."""
    return isinstance(name, str) and "/" not in name and "\\" not in name


def _model_config(path: Path) -> dict:
    """``vision.json`` of a model folder ({} without one), its number settings checked."""
    if not path.exists():
        return {}
    from ..storage import NotTextError, describe_os_error, json_error_text, read_text_file

    try:
        cfg = json.loads(read_text_file(path))
    except NotTextError as exc:
        raise ModelError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot be read ({describe_os_error(exc)})") from None
    except json.JSONDecodeError as exc:
        raise ModelError(
            f"{path}: not valid JSON ({json_error_text(exc)} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(cfg, dict):
        raise ModelError(f"{path}: expected a JSON object at the top")
    for key in (k for k in _NUMBER_SETTINGS if k in cfg):
        v = cfg[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ModelError(f"{path}: {key} must be a number, not {json.dumps(v)}")
        if not math.isfinite(v):
            raise ModelError(f"{path}: {key} must be a finite number, not {json.dumps(v)}")
        if key in _PROBABILITY_SETTINGS and not 0 <= v <= 1:
            raise ModelError(f"{path}: {key} is a probability: it must be from 0 to 1, not {json.dumps(v)}")
        if key in _NUMBER_RANGES:
            low, inclusive, what = _NUMBER_RANGES[key]
            if v < low or (v == low and not inclusive):
                raise ModelError(
                    f"{path}: {key} is {what}: it must be {'at least' if inclusive else 'above'} "
                    f"{low:g}, not {json.dumps(v)}"
                )
    for key, choices in _CHOICE_SETTINGS.items():
        if key in cfg and cfg[key] not in choices:
            raise ModelError(
                f"{path}: {key} must be {' or '.join(map(json.dumps, choices))}, not {json.dumps(cfg[key])}"
            )
    return cfg


def _session(path: Path, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    # no busy-waiting worker threads: on a shared or small machine spinning costs more than it saves
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


class CardDetector:
    """Reads a Klondike layout from camera frames. Create once, call :meth:`detect` per frame.

    ``model_path``: a folder holding ``card_locator.onnx`` and ``card_reader.onnx``, or one of
    those two files in it (default the shipped ``models/``, or ``SOLITAIRE_MODELS``); a folder
    that cannot be used, or another file, raises :class:`ModelError` naming the file and what
    is wrong, after ``SOLITAIRE_MODELS:`` when the folder came from it, or after ``option``
    (the command-line option that gave ``model_path``, as ``--model``) if given.
    ``calibration``: optional dict with ``slots`` (slot name -> [x, y] image px, the centre
    of the card in that slot) and ``card_size_px``. ``deck``: the
    name of a deck learnt with ``learn-deck`` (``decks/NAME`` of the per-user data folder); one that cannot
    be used raises :class:`DeckError` (see :func:`load_learnt_deck`). ``threads``: onnxruntime's
    intra-op threads (0: its default). ``sessions``: where the networks' sessions are kept
    (default :data:`SESSIONS`, shared by every detector of the process).
    """

    def __init__(
        self,
        model_path=None,
        calibration: dict | None = None,
        deck: str | None = None,
        threads: int = 0,
        option: str | None = None,
        sessions: ModelSessions | None = None,
    ):
        d = Path(model_path) if model_path is not None else default_model_dir()
        given_by = (
            option if model_path is not None else "SOLITAIRE_MODELS" if os.environ.get("SOLITAIRE_MODELS") else None
        )
        try:
            cfg, self.geom = self._load(d, threads, SESSIONS if sessions is None else sessions)
        except ModelError as exc:
            if given_by:
                raise ModelError(f"{given_by}: {exc}") from None
            raise
        self.peak_thresh = float(cfg.get("peak_thresh", 0.3))
        self.read_thresh = float(cfg.get("read_thresh", 0.9))
        # a card covered by the next one of its pile shows one corner only (its strip): its own threshold
        self.strip_thresh = float(cfg.get("read_thresh_strip", self.read_thresh))
        self.none_thresh = float(cfg.get("none_thresh", 0.5))
        self.back_sure = float(cfg.get("back_sure", 0.6))
        self.ref_temp = float(cfg.get("ref_temp", 25.0))
        self.zoom = float(cfg.get("zoom", 1.0))
        # the probability given to a whole card's rank that its corners, the face reader and
        # the index reader find likeliest alike (0: none; see _agreed_ranks)
        self.agreed_rank = float(cfg.get("agreed_rank", 0.0))
        # a whole card whose own corner reads far_sure or surer, in a frame where far_share of
        # the face-up cards or more read surely by their own corner, is not read at its far
        # corner too (far_sure 1: every whole card is; see _detect_upright)
        self.far_sure = float(cfg.get("far_sure", 1.0))
        self.far_share = float(cfg.get("far_share", 0.9))
        self.conf_mode = str(cfg.get("conf_mode", "prob"))
        self.model_pow = float(cfg.get("model_pow", 0.5))
        self.combine = str(cfg.get("combine", "product"))  # how the two corner reads of a whole card combine
        self.calibration = calibration
        # the locator's input width that suits this camera's cards, and which way is up
        # (both learnt from the frames, see locate_any_scale and detect)
        self.locator_width = F.LOC_W
        self.orientation = 0
        self.orientation_settled = False
        self.deck = deck
        self.refs = None
        self.head = None
        self.deck_reader = None  # a learnt deck's own reader of the card pixels (deckreader.py)
        self.model_read_thresh, self.model_strip_thresh = self.read_thresh, self.strip_thresh
        if deck:
            self.read_thresh = float(cfg.get("read_thresh_learnt", self.read_thresh))
            self.strip_thresh = float(cfg.get("read_thresh_strip_learnt", max(self.read_thresh, self.strip_thresh)))
            dim = self.reader.get_outputs()[-1].shape[-1]
            learnt = load_learnt_deck(deck, dim if isinstance(dim, int) else None)
            if learnt.meta.get("reader") != self.reader_id:
                raise DeckError(
                    f"learnt deck {deck!r} was learnt with another card reader than this model's "
                    f"({self.reader_path}): learn the deck again with solitaire-coach learn-deck"
                )
            if learnt.meta.get("use_model") is True:
                # the shipped model reads this deck's grid: read as it reads it (learn.py)
                self.read_thresh, self.strip_thresh = self.model_read_thresh, self.model_strip_thresh
            else:
                self.refs, self.head, self.deck_reader = learnt.refs, learnt.head, learnt.reader
                # the deck's own thresholds, picked by learn-deck on its cards
                self.read_thresh = float(learnt.meta.get("read_thresh", self.read_thresh))
                self.strip_thresh = float(learnt.meta.get("read_thresh_strip", self.strip_thresh))

    @staticmethod
    def _fast_reader(d: Path, cfg, threads: int, sessions: ModelSessions):
        """vision.json's ``fast_reader`` entry: (its session, its ``sure``), or (None, 1.0)
        where there is none. The fast reader (training/distil_reader.py: taught by the main
        reader, under half its compute) reads every corner first; the main reader reads again
        only the corners the fast one is not sure of (see :meth:`read_patches`)."""
        if not cfg:
            return None, 1.0
        where = d / "vision.json"
        file = cfg.get("file") if isinstance(cfg, dict) else None
        if not file or not _in_folder(file):
            raise ModelError(f"{where}: fast_reader must hold file, a file name in the model folder, and sure")
        sure = _probabilities({"sure": cfg.get("sure")}, "fast_reader's", where)["sure"]
        return _load_model(d / file, threads, sessions, "card reader", "patch"), sure

    @property
    def _reads_learnt_deck(self) -> bool:
        """Whether a learnt deck's references, head or own reader take part in the reads."""
        return self.head is not None or self.refs is not None or self.deck_reader is not None

    @functools.cached_property
    def reader_id(self) -> str:
        """Which card reader this is (a short SHA-256 of the file run), for learnt decks:
        their references are this reader's embeddings. Worked out when first asked, not at
        start-up."""
        return _file_digest(self.reader_path)

    def _load(self, d: Path, threads: int, sessions: ModelSessions) -> tuple[dict, F.PatchGeom]:
        """Load the two networks of model folder ``d`` (or of the folder of one of its two model
        files); returns its checked ``vision.json`` settings and its patch geometry."""
        if d.is_file():
            if d.name not in MODEL_FILES:
                raise ModelError(
                    f"{str(d)!r} is a file, not a model folder (a folder holding {' and '.join(MODEL_FILES)})"
                )
            d = d.parent
        if not d.is_dir():
            raise ModelError(f"model folder {str(d)!r} does not exist")
        self.locator = _load_model(d / "card_locator.onnx", threads, sessions)
        cfg = _model_config(d / "vision.json")
        self.rows = RowsRule.from_config(cfg.get("rows_locator"), d / "vision.json")
        self.rows_locator = (
            None if self.rows is None else _load_model(d / self.rows.file, threads, sessions, "rows locator", "image")
        )
        # ``reader_file``: the reader to run, when not card_reader.onnx (an 8-bit copy of it, say:
        # training/quantize_reader.py); card_reader.onnx stays the reference the copy came from
        reader_file = cfg.get("reader_file", "card_reader.onnx")
        if not _in_folder(reader_file):
            raise ModelError(
                f"{d / 'vision.json'}: reader_file must be a file name in the model folder, not {json.dumps(reader_file)}"
            )
        self.reader = _load_model(d / reader_file, threads, sessions, "card reader", "patch")
        self.reader_path = d / reader_file
        self.fast_reader, self.fast_sure = self._fast_reader(d, cfg.get("fast_reader"), threads, sessions)
        self.familiar = FamiliarRule.from_config(cfg.get("familiar"), d / "vision.json")
        self.elsewhere = ElsewhereRule.from_config(cfg.get("elsewhere"), d / "vision.json")
        # cards the locator finds turned (at least ``turn_min`` degrees) and that read UU are
        # read again at these extra turns (degrees): see _read_turned
        try:
            self.turn_tries = tuple(float(t) for t in cfg.get("turn_tries", ()))
            self.turn_min = float(cfg.get("turn_min", 4.0))
        except (TypeError, ValueError):
            raise ModelError(
                f"{d / 'vision.json'}: turn_tries must be a list of degrees and turn_min a number of degrees"
            ) from None
        # a frame whose face-up cards lie askew and read unsure is looked at again turned by
        # this many degrees (0: never): see _read_askew
        askew = cfg.get("askew_turn", 0.0)
        if isinstance(askew, bool) or not isinstance(askew, (int, float)) or not 0 <= askew <= 45:
            raise ModelError(
                f"{d / 'vision.json'}: askew_turn must be a number of degrees from 0 to 45, not {json.dumps(askew)}"
            )
        self.askew_turn = float(askew)
        self.second_reader = None
        self.second_reader_kind = True
        try:
            second = cfg.get("second_reader")
            if second:
                self.second_reader = (
                    _load_model(d / second["file"], threads, sessions, "card reader", "patch"),
                    F.PatchGeom.from_config(second["patch"]),
                )
                # "kind": false: the second reader only reads rank and suit (face, back or no
                # card is the first reader's alone, as when it knows backs the other never saw)
                self.second_reader_kind = second.get("kind", True) is not False
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(
                f"{d / 'vision.json'}: patch and second_reader's patch must hold read_h, read_w, x "
                f"and y, and second_reader a file ({exc!r})"
            ) from None
        # the whole-face reader (training/train_face_reader.py): a card whose whole face shows
        # is also read whole, cut along its axes (its own ``patch``); its read is weighed in
        # with ``weight`` (geometric: corners ** (1 - weight) * face ** weight).
        # "mode" "always": weighed into every whole card's read; "unsure": only into reads the
        # corners alone are not sure of (a sure corner read stands)
        face = cfg.get("face_reader")
        self.face_reader, self.face_weight = _extra_reader(d, face, "face", F.FACE_GEOM, threads, sessions)
        self.face_mode = "always"
        if face:
            self.face_mode = str(face.get("mode", "always"))
            if self.face_mode not in ("always", "unsure"):
                raise ModelError(
                    f"{d / 'vision.json'}: face_reader's mode {self.face_mode!r} is neither 'always' nor 'unsure'"
                )
        try:
            geom = F.PatchGeom.from_config(cfg.get("patch"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(
                f"{d / 'vision.json'}: patch and second_reader's patch must hold read_h, read_w, x "
                f"and y, and second_reader a file ({exc!r})"
            ) from None
        # a reader asked, like the face reader in "unsure" mode, only about the face-up cards
        # the corners alone are not sure of, strips included: a strip's read becomes
        # corners ** (1 - weight) * it ** weight; a whole card's second opinion is
        # face ** (1 - weight) * it ** weight. Either the index reader (training/
        # train_face_reader.py --index: the corner patch, default the main reader's, read by a
        # network that saw the font designs) or the band reader (--band: the top band of a
        # card, its whole width down to 45% of its height, all a covered card shows).
        if cfg.get("index_reader") and cfg.get("band_reader"):
            raise ModelError(f"{d / 'vision.json'}: name index_reader or band_reader, not both")
        if cfg.get("index_reader"):
            self.band_reader, self.band_weight = _extra_reader(d, cfg["index_reader"], "index", geom, threads, sessions)
        else:
            self.band_reader, self.band_weight = _extra_reader(
                d, cfg.get("band_reader"), "band", F.BAND_GEOM, threads, sessions
            )
        self.top_right = TopRightRule.from_config(cfg.get("top_right"), d / "vision.json")
        self.pips = PipRule.from_config(cfg.get("pips"), d / "vision.json")
        self.pip_reader = (
            None if self.pips is None else _load_model(d / self.pips.file, threads, sessions, "pip reader", "crop")
        )
        self.strip_reader = (
            None
            if self.pips is None or not self.pips.strip_file
            else _load_model(d / self.pips.strip_file, threads, sessions, "strip reader", "strip")
        )
        return cfg, geom

    # ------------------------------------------------------------------ networks
    def locate(self, frame_bgr: np.ndarray, width: int | None = None, room: bool = False) -> list[_Mark]:
        """Every card the locator network finds in the frame (face or back), in frame pixels;
        :class:`FrameError` when ``frame_bgr`` is no BGR picture (see :func:`check_frame`).

        ``width``: the width the frame is scaled to for the locator (default: the one that
        suits the cards of this camera, see :meth:`locate_any_scale`; 640 before any frame).

        ``room``: set the frame first in a table of its own median colour, with its longer
        side's length of room on every side (:meth:`locate_any_scale` does at its coarsest
        widths, ``LOCATOR_PADDED_MAX`` and under, where cards are a quarter to half of the
        frame wide): the locator, trained on cards lying on a table with room around them,
        finds such cards surely only with that room."""
        check_frame(frame_bgr)
        return self._locate(frame_bgr, width or self.locator_width, room)

    def _locate(self, frame_bgr: np.ndarray, width: int, room: bool, inputs: dict | None = None) -> list[_Mark]:
        """:meth:`locate` (of a checked frame); ``inputs``: see :meth:`_locator_tensor`."""
        tensor, pad, s = self._locator_tensor(frame_bgr, width, room, inputs)
        out = self.locator.run(None, {"image": tensor})[0][0]
        return _marks(out, self.peak_thresh, pad, s)

    def _locator_tensor(
        self, frame_bgr: np.ndarray, width: int, room: bool, inputs: dict | None = None
    ) -> tuple[np.ndarray, int, float]:
        """The locator's input tensor for ``frame_bgr`` at ``width`` (see
        :meth:`_locator_image`), its room and scale. ``inputs``: the ones already made for
        this frame, by (width, room), where it is looked at more than once (one
        :meth:`locate_any_scale`, whose rows look reuses the chosen width's: scaling a
        1920x1080 frame costs more than the network); the new one is added to it."""
        key = (width, room)
        if inputs is not None and key in inputs:
            return inputs[key]
        img, pad, s = self._locator_image(frame_bgr, width, room)
        made = (F.to_tensor(img[None]), pad, s)
        if inputs is not None:
            inputs[key] = made
        return made

    def _locator_image(self, frame_bgr: np.ndarray, width: int, room: bool) -> tuple[np.ndarray, int, float]:
        """The locator's input for ``frame_bgr`` at ``width`` (set in its room, see
        :meth:`locate`), the room's width in locator pixels and the frame's scale."""
        if not room:
            img, s = F.locator_input(frame_bgr, width)
            return img, 0, s
        # scaled first, then set in its room: the same picture as padding the frame
        # itself, at a hundredth of the pixels for a large frame
        fh, fw = frame_bgr.shape[:2]
        colour = np.median(frame_bgr[::8, ::8].reshape(-1, 3), axis=0).tolist()
        small, scale = F.locator_input(frame_bgr, width)
        small = small[: max(1, int(round(fh * scale)))]  # without locator_input's bottom rows
        pad = int(round(max(fh, fw) * scale))
        roomy = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=colour)
        img, _ = F.locator_input(roomy, roomy.shape[1])  # as it is, its height padded to 8s
        return img, pad, scale

    def _with_rows(self, frame_bgr: np.ndarray, width: int, marks: list[_Mark], inputs: dict) -> list[_Mark]:
        """``marks`` (the locator's at ``width``) and the face-up cards the rows locator
        finds there that no mark has (see :class:`RowsRule`); ``inputs``: see
        :meth:`_locator_tensor`."""
        rule = self.rows
        if rule is None or not rule.wanted(marks):
            return marks
        tensor, pad, s = self._locator_tensor(frame_bgr, width, _roomy(width), inputs)
        out = self.rows_locator.run(None, {"image": tensor})[0][0]
        fh, fw = frame_bgr.shape[:2]
        return marks + rule.added(marks, _marks(out, rule.least, pad, s), fw, fh)

    def locate_any_scale(self, frame_bgr: np.ndarray, coarser: bool = True) -> list[_Mark]:
        """The locator's marks at the scale where this frame's cards have the size it was
        trained on (``LOCATOR_CARD_W`` locator pixels wide): a close camera or a phone photo
        (cards a quarter or half of the frame wide) is looked at smaller, cards 50 px wide in
        a large frame larger. Every frame starts at the trained width (640), so a frame at
        the usual scale costs one locator run, and one misjudged frame does not stay with
        the camera; the width used is left in ``locator_width``."""
        check_frame(frame_bgr)
        inputs: dict = {}  # the frame's scaled inputs, made once each (see _locator_tensor)
        width = F.LOC_W
        tried: dict[int, list[_Mark]] = {}
        while width not in tried:
            marks = tried[width] = self._locate_whole(frame_bgr, width, inputs)
            size = _card_width(marks, frame_bgr.shape[1], width)
            if size is None:
                break
            lo, hi = LOCATOR_CARD_W
            step = LOCATOR_WIDTHS.index(width)
            if size > hi and step > 0:
                width = LOCATOR_WIDTHS[step - 1]
            elif size < lo and step + 1 < len(LOCATOR_WIDTHS) and frame_bgr.shape[1] > width:
                width = LOCATOR_WIDTHS[step + 1]
        by_reads = False
        if coarser:
            chosen = self._look_coarser(frame_bgr, tried, width, inputs)
            by_reads, width = chosen != width, chosen
        if not by_reads and _card_width(tried[width], frame_bgr.shape[1], width) is None:
            # nothing sure at the widths tried: look at every width once, keep the surest.
            # A coarser width whose cards read surely stands: one card half the frame wide
            # is one sure mark, too few to measure a size by, but it is read there
            for w in LOCATOR_WIDTHS:
                if w not in tried and (w <= 640 or frame_bgr.shape[1] > w):
                    tried[w] = self._locate_whole(frame_bgr, w, inputs)
            width = max(tried, key=lambda w: (sum(m.score for m in tried[w] if m.score >= 0.5), w == 640))
            if not any(m.score >= 0.5 for m in tried[width]):
                return tried[width]  # no card anywhere: keep the width as it was
        self.locator_width = width
        return self._with_rows(frame_bgr, width, tried[width], inputs)

    def _locate_whole(self, frame_bgr: np.ndarray, width: int, inputs: dict) -> list[_Mark]:
        """:meth:`locate` of a whole frame at ``width``, with room around it at the coarsest
        widths (``LOCATOR_PADDED_MAX`` and under)."""
        return self._locate(frame_bgr, width, _roomy(width), inputs)

    def _look_coarser(self, frame_bgr: np.ndarray, tried: dict[int, list[_Mark]], width: int, inputs: dict) -> int:
        """The width to keep once sizes led to ``width``: a coarser one where the cards are
        truly large. The locator's card sizes saturate near the largest it was trained on:
        a card a quarter or half of the frame wide looks merely large at 640 (60-78 px there),
        or is found in pieces, few of them sure. Where the cards look that large
        (``LOCATOR_BIG_W``) or fewer than four are sure, the coarser widths are looked at
        too, and the width whose marks read surely the most cards is kept. A coarser width
        that reads more wins where the cards look very large (``LOCATOR_BIG_W[1]``) or few
        (under 8) were sure; against many sure cards of a size the locator still measures,
        it must read decisively more (two more and half as many again): cards of an
        unfamiliar design read poorly at any width. Cards of the usual size cost no extra look."""
        step = LOCATOR_WIDTHS.index(width)
        marks = tried[width]
        size = _card_width(marks, frame_bgr.shape[1], width)
        sure = sum(m.score >= 0.5 for m in marks)
        if step == 0:
            return width
        if size is not None and size < LOCATOR_BIG_W[0] and sure >= LOCATOR_TABLE_MARKS:
            return width  # a table of ordinary cards: no glance (a close camera shows few)
        glance = self._large_glance(frame_bgr, inputs)
        large = bool(glance)
        if size is not None and size < LOCATOR_BIG_W[0] and sure >= 4 and not large:
            return width
        loose = large or (size is not None and size >= LOCATOR_BIG_W[1]) or sure < 8
        best, best_reads = width, self._sure_reads(frame_bgr, marks)
        for coarse in reversed(LOCATOR_WIDTHS[:step]):
            if coarse not in tried:
                tried[coarse] = self._locate_whole(frame_bgr, coarse, inputs)
            looks = [tried[coarse]]
            if large and coarse == LOCATOR_WIDTHS[0] and _roomy(coarse):
                # the glance's own marks too (no room): a court half the frame wide that
                # the look with room reads UU may read there
                looks.append(glance)
            need = 1 if large else 2
            scored = [(self._sure_reads(frame_bgr, k), k) for k in looks if sum(m.score >= 0.5 for m in k) >= need]
            if not scored:
                continue
            reads, look = max(scored, key=lambda r: r[0])  # the first of the best: the look with room
            if reads > (0, 0):
                tried[coarse] = look
            if loose:
                better = reads > best_reads  # faces first, then backs
            else:
                got, had = sum(reads), sum(best_reads)
                better = got > had and got >= max(had + 2, 1.5 * had)
            if better:
                best, best_reads = coarse, reads
        return best

    def _large_glance(self, frame_bgr: np.ndarray, inputs: dict) -> list[_Mark]:
        """The marks of a glance at the frame at the locator's coarsest width, with no room
        around it (1-2 ms a 1280x720 frame on 2 cores, the frame's scaling half of it), where
        they hold a card the locator is sure of that is a sixth of the frame wide or more;
        none where they do not. At 640 the locator finds such a card in pieces (a court's
        picture taken for backs, the pips for small cards) and measures them 50-60 px, the
        size of ordinary cards, so their size alone does not send it to look coarser."""
        w0 = LOCATOR_WIDTHS[0]
        scale = w0 / frame_bgr.shape[1]
        marks = self._locate(frame_bgr, w0, False, inputs)
        return marks if any(m.score >= 0.5 and m.w * scale >= LOCATOR_CARD_W[0] for m in marks) else []

    def _sure_reads(self, frame_bgr: np.ndarray, marks: list[_Mark]) -> tuple[int, int]:
        """How many of ``marks`` (after suppression) the corner reader reads surely, as
        (faces, backs): a face with its card at ``read_thresh``, a back (one corner read
        each, with a learnt deck's own read where there is one, no other rule)."""
        marks = _suppress(marks)
        if not marks:
            return 0, 0
        kind, rank, suit, emb = self.read_cuts(frame_bgr, [((m.x, m.y), *m.axes()) for m in marks])
        best = self._with_deck(model_card_probs(rank, suit), emb, self.head).max(1)
        return int(np.sum((kind[:, 0] > 0.5) & (best >= self.read_thresh))), int(np.sum(kind[:, 1] > 0.5))

    def read_patches(self, patches: np.ndarray, main_only: bool = False):
        """kind, rank, suit probabilities and embeddings of N patches (N x read_h x read_w x 3 BGR).

        Where the model has a fast reader (``fast_reader`` in vision.json) it reads every
        patch first; a patch it does not read surely (a back, no card, or a face and its card
        at ``sure`` or surer) is read again by the main reader, whose answer replaces its
        own. ``main_only`` (and a learnt deck, whose references are the main reader's
        embeddings): the main reader reads every patch, its embeddings all of one reader."""
        if len(patches) == 0:
            z = np.zeros((0,), np.float32)
            return z.reshape(0, 3), z.reshape(0, 13), z.reshape(0, 4), z.reshape(0, 128)
        x = F.to_tensor(patches)
        if self.fast_reader is None or main_only or self._reads_learnt_deck:
            return self.reader.run(None, {"patch": x})
        kind, rank, suit, emb = self.fast_reader.run(None, {"patch": x})
        sure = np.maximum(np.maximum(kind[:, 1], kind[:, 2]), kind[:, 0] * rank.max(1) * suit.max(1))
        again = np.flatnonzero(sure < self.fast_sure)
        if len(again):
            for mine, main in zip((kind, rank, suit, emb), self.reader.run(None, {"patch": x[again]})):
                mine[again] = main
        return kind, rank, suit, emb

    def read_cuts(self, frame_bgr: np.ndarray, cuts: list[tuple]):
        """kind, rank, suit probabilities and embeddings of the card corners ``cuts`` (each a
        card's corner, width and height vectors in frame px), read by the reader and, where
        the model folder has one (``second_reader`` in ``vision.json``), by a second reader
        with its own patch too: their kind probabilities are averaged (unless the second's
        ``"kind"`` is false) and their rank and suit probabilities multiplied (a card both readers are sure of stays sure; one they
        disagree on loses confidence). The embedding is the first reader's (learn-deck's)."""
        patches = _cut_patches(frame_bgr, cuts, self.geom)
        kind, rank, suit, emb = self.read_patches(patches)
        if self.second_reader is None or not len(cuts):
            return kind, rank, suit, emb
        session, g2 = self.second_reader
        # readers of one patch geometry read the same patches: cut them once
        patches2 = patches if g2 == self.geom else _cut_patches(frame_bgr, cuts, g2)
        kind2, rank2, suit2, _ = session.run(None, {"patch": F.to_tensor(patches2)})
        if self.second_reader_kind:
            kind = (kind + kind2) / 2
        return kind, _geo_mean(rank, rank2), _geo_mean(suit, suit2), emb

    def read_faces(self, frame_bgr: np.ndarray, marks: list[_Mark]) -> np.ndarray | None:
        """N x 52 card probabilities of ``marks`` read whole by the face reader (each mark's
        whole card cut along its axes); None when the model folder has no face reader."""
        return _read_with(self.face_reader, self.patches, frame_bgr, marks)

    def read_bands(self, frame_bgr: np.ndarray, marks: list[_Mark]) -> np.ndarray | None:
        """N x 52 card probabilities of ``marks`` (covered or not) read by the index reader
        (their corner) or the band reader (their top band); None when the model folder has
        neither."""
        return _read_with(self.band_reader, self.patches, frame_bgr, marks)

    def patches(self, frame_bgr: np.ndarray, marks: list[_Mark], geom: F.PatchGeom | None = None) -> np.ndarray:
        """The reader's corner patch (or ``geom``'s cut) of each of ``marks`` (N x read_h x
        read_w x 3 BGR)."""
        return _cut_patches(frame_bgr, [((m.x, m.y), *m.axes()) for m in marks], geom or self.geom)

    def card_probs(self, rank: np.ndarray, suit: np.ndarray, emb: np.ndarray, head=None) -> np.ndarray:
        """N x 52 card probabilities (index = Card.index), using the learnt deck if any
        (``head``: a per-deck head ``(W, b)`` to use instead of the detector's own)."""
        return self._with_deck(model_card_probs(rank, suit), emb, self.head if head is None else head)

    def _with_deck(self, p: np.ndarray, emb: np.ndarray, head) -> np.ndarray:
        """The model's card probabilities ``p`` combined with a learnt deck's read of ``emb``."""
        if head is not None and len(emb):
            z = emb @ head[0] + head[1]
            ph = np.exp(z - z.max(1, keepdims=True))
            ph /= ph.sum(1, keepdims=True)
            p = p**self.model_pow * ph
            p /= p.sum(1, keepdims=True)
        elif self.refs is not None and len(emb):
            sim = emb @ self.refs.T  # cosine similarity to the 52 reference patches
            pr = np.exp((sim - sim.max(1, keepdims=True)) * self.ref_temp)
            pr /= pr.sum(1, keepdims=True)
            p = p**self.model_pow * pr
            p /= p.sum(1, keepdims=True)
        return p

    def _read_card(
        self,
        probs: np.ndarray,
        i: int,
        extra: list[int],
        face: float,
        strip: bool,
        whole_thresh: float,
        strip_thresh: float,
        face_p: np.ndarray | None = None,
    ):
        """(card or None, confidence, likeliest card, the 52 card probabilities it was taken
        from: the confidence is the likeliest one's times ``face``; they need not sum to 1) of
        mark ``i`` from its reads (its corner, and for a whole card the ``extra`` reads of its
        other corner, and ``face_p`` a second opinion: for a whole card the face (and band)
        reader's read, weighed in with ``face_weight``, for a strip the band reader's, with
        ``band_weight``)."""
        reads = [probs[i]] + [probs[k] for k in extra]
        p = reads[0]
        if len(reads) > 1 and self.combine == "min":
            # the two corners of one card are drawn alike, so their errors go together:
            # believe a card no more than the less sure read does
            p = np.min(reads, axis=0)
        elif len(reads) > 1:
            # agreement of the reads: their product, tempered by the least sure read
            logp = np.sum([np.log(r + 1e-9) for r in reads], axis=0)
            p = np.exp(logp - logp.max())
            p = p / float(p.sum())
            p = np.sqrt(p * np.min(reads, axis=0))
        w = self.band_weight if strip else self.face_weight
        if face_p is not None and w > 0 and (strip or self.face_mode == "unsure"):
            # the face or band reader as a second opinion only: a sure corner read stands as it is
            conf0 = float(min(1.0, p.max())) * face
            if conf0 >= (strip_thresh if strip else whole_thresh):
                face_p = None
        if face_p is not None and w > 0:
            p = _weighed(p, face_p, w)
        j = int(p.argmax())
        top = float(min(1.0, p[j]))
        if self.conf_mode == "margin":  # how far the best card is ahead of the next one
            top = top - float(np.partition(p, -2)[-2])
        conf = float(max(0.0, top) * face)
        best = Card.from_index(j)
        return (best if conf >= (strip_thresh if strip else whole_thresh) else None), conf, best, p

    def _with_bands(self, frame_bgr, marks, kind, probs, second, uncovered, face_of):
        """``face_of`` (second opinions by mark id) with the band (or index) reader's reads of
        the face-up marks whose corners alone are not sure: a strip's band read alone, a whole
        card's band read combined with its face read where it has one (face ** (1 - w) x
        band ** w, ``w`` the band weight); and those band reads alone, by mark id."""
        asked = []
        for i, m in enumerate(marks):
            if kind[i, 2] >= self.none_thresh or kind[i, 1] > kind[i, 0]:
                continue
            strip = id(m) not in uncovered
            extra_i = [k for k in second.get(id(m), []) if kind[k, 0] > 0.5]
            _, conf, _, _ = self._read_card(
                probs, i, extra_i, float(kind[i, 0] + kind[i, 1]), strip, self.read_thresh, self.strip_thresh
            )
            if conf < (self.strip_thresh if strip else self.read_thresh):
                asked.append(m)
        bands = self.read_bands(frame_bgr, asked)
        out = dict(face_of)
        alone = {}
        for k, m in enumerate(asked):
            b = alone[id(m)] = bands[k]
            f = out.get(id(m))
            if f is not None:
                b = _weighed(f, b, self.band_weight)
            out[id(m)] = b
        return out, alone

    def _agreed_ranks(self, unsure, probs: np.ndarray, face_alone: dict, band_alone: dict) -> dict[int, int]:
        """The rank (1-13), by mark id, of each whole card of ``unsure`` ((mark, row in
        ``probs``) each) that three readers find likeliest alike: its corners (``probs``),
        the face reader (``face_alone``) and the index reader (``band_alone``), each alone
        however unsure. Measured on whole cards of designs never trained on (validation,
        held-out and 18 top-right designs, about 900 cards), the three agreed on the right
        rank of 53-100% per design and never on a wrong one: a design's unknown font makes each
        reader unsure, but their errors differ. Cards lying turned by ``_AGREE_MAX_TURN``
        degrees or more are left out: in the real photos' fanned hands (cards turned 15-60
        degrees, overlapping every way) the three agreed on two wrong cards. Empty where
        ``agreed_rank`` is 0."""
        out: dict[int, int] = {}
        if not self.agreed_rank:
            return out
        for m, i in unsure:
            f, b = face_alone.get(id(m)), band_alone.get(id(m))
            if m.strip or f is None or b is None or abs(math.degrees(m.angle)) >= _AGREE_MAX_TURN:
                continue
            r = int(probs[i].reshape(4, 13).sum(0).argmax())
            if r == int(f.reshape(4, 13).sum(0).argmax()) == int(b.reshape(4, 13).sum(0).argmax()):
                out[id(m)] = r + 1
        return out

    def _read_top_right(
        self, frame_bgr: np.ndarray, unsure, probs: np.ndarray, kind: np.ndarray, marks, band_of: dict, agreed: dict
    ) -> int:
        """Read the suit of the ``unsure`` face-up marks ((mark, row in ``probs``) each: left
        UU by their corners) from their top-right corner, for designs that print the small
        suit there and not under the rank (issue 40: tango_nuevo). The corner is cut mirrored
        (the suits are left-right symmetric), so the corner reader reads it as a top-left
        corner that shows a suit and no rank. A mark takes the card of its corners' rank
        (weighed with the index or band reader's, ``band_of``, at the band weight; not with
        the face reader's, which reads ranks of unknown designs worse) and that suit where
        (see :class:`TopRightRule`) the mirrored corner shows a sure suit and no rank, and
        the card comes out sure at the rule's own threshold; marks whose top right another
        card covers (a fanned waste) are not asked. With a learnt deck, ``probs`` are its reads
        and only cards neither it nor the shipped model reads surely are asked. Returns how
        many were read. A rank the readers agree on (``agreed``, see :meth:`_agreed_ranks`)
        is taken as sure."""
        rule = self.top_right
        asked = [(m, i) for m, i in unsure if not _covered_right(m, marks)]
        if not asked:
            return 0
        cuts = []
        for m, _ in asked:
            (ux, uy), v = m.axes()
            cuts.append(((m.x + ux, m.y + uy), (-ux, -uy), v))
        _, rank2, suit2, _ = self.read_cuts(frame_bgr, cuts)
        n = 0
        for k, (m, i) in enumerate(asked):
            if suit2[k].max() < rule.suit_sure or rank2[k].max() >= rule.rank_none:
                continue
            rank_p = probs[i].reshape(4, 13).sum(0)  # the corners' rank, whatever the suit
            second = band_of.get(id(m))
            if second is not None and self.band_weight > 0:
                rank_p = _weighed(rank_p, second.reshape(4, 13).sum(0), self.band_weight)
            suit_p = suit2[k]
            if id(m) in agreed:
                rank_p = _sure_rank(agreed[id(m)], self.agreed_rank)
                # a sure rank leaves the suit alone to decide. The corners' suit knows the
                # colour but not, on a design that prints its small suit at the top right,
                # the suit itself: where it gives the top right's colour and does not name
                # that colour's other suit surely, the top right's suit stands alone (tango's
                # kings and queens, corners split between the twins, were left UU when they
                # weighed in); otherwise it weighs in (bellot's top right once named a spade
                # for a diamond; a drawn design's corners named a 7 of hearts a diamond at 0.86)
                card_suit = probs[i].reshape(4, 13).sum(1)
                if not (_same_colour(card_suit, suit_p) and not _twin_sure(card_suit, suit_p)):
                    suit_p = _weighed(card_suit, suit_p, _AGREED_SUIT_WEIGHT)
            elif second is not None and rule.index_sure < 1.0:
                # the index reader's rank alone, where it is sure: it knows the world's fonts,
                # the corner reader does not (tango's 9 read by the corners as a Q at 0.92
                # outweighed the index reader's 9 at 0.94)
                index_rank = second.reshape(4, 13).sum(0)
                index_rank = index_rank / max(float(index_rank.sum()), 1e-9)
                if index_rank.max() >= rule.index_sure:
                    rank_p = _sure_rank(int(index_rank.argmax()) + 1, self.agreed_rank)
            p = (suit_p[:, None] * rank_p[None, :]).ravel()
            j = int(p.argmax())
            conf = float(p[j]) * float(kind[i, 0] + kind[i, 1])
            m.likely = Card.from_index(j)
            if conf >= rule.thresh:
                m.card, m.conf, m.how = m.likely, conf, "top right"
                n += 1
        return n

    def _read_pips(
        self,
        frame_bgr: np.ndarray,
        unsure,
        probs: np.ndarray,
        kind: np.ndarray,
        marks,
        seconds,
        agreed: dict,
        doubtful=(),
    ) -> int:
        """Read the ``unsure`` face-up marks ((mark, row in ``probs``) each, left UU by their
        corners and the top-right corner) from the pips that show (see :mod:`.pips`): the
        part of the card that no card below covers, warped upright, its pip-sized ink blobs
        named by the pip reader. Where the blobs tell one suit surely (see :class:`PipRule`)
        and the corners find an ace or number card likeliest (a court's picture is no pip,
        whatever shapes it holds) and the card's own suit gives its colour even odds or
        better, that suit is weighed into the card's suit; on a whole card, where the pips
        outside the index corners number as many as the rank the corners find likeliest (2
        to 10), that rank is taken as sure. The card is then that rank times that suit,
        read where it comes out at the rule's threshold; so is a whole card whose rank the
        readers agree on (``agreed``, see :meth:`_agreed_ranks`), with its own suit (the
        corners' with the face reader's) where no pip tells one. ``seconds``: the second
        opinions by mark id (face and index reader), weighed in as the detector does. Marks
        covered at their right (a fanned waste: the pips lie under the next card) are not
        asked. Returns how many were read.

        The ``doubtful`` marks (read, but under the rule's ``doubt``: whole, straight aces and
        number cards read by their corners or the top right, chosen by the caller) are asked too: where their pips name
        another suit of the same colour at the rule's ``veto`` or surer, the read is taken
        back and the card left UU (measured: the H/D and S/C misreads of designs never
        trained on, see :class:`PipRule`)."""
        rule = self.pips
        asked, crops, boxes, owner, tips, tip_owner, strips, strip_owner = [], [], [], [], [], [], [], []
        for m, i in list(unsure) + list(doubtful):
            if _covered_right(m, marks):
                continue
            u, v = m.axes()
            shown = _shown(m, marks)
            view = P.card_view(frame_bgr, (m.x, m.y), u, v, shown)
            blobs = P.ink_blobs(view)
            pc = P.pip_crops(view, blobs=blobs)
            # a strip left UU: the tips of its top pips that the next card cuts (issue 40)
            tips_asked = shown < 1.0 and m.card is None and min(rule.tip_sure, rule.tip_one_sure) < 1.0
            tc = P.tip_crops(view, blobs=blobs).crops if tips_asked else ()
            # ... and its whole band, for the strip reader
            strip_asked = shown < 1.0 and m.card is None and self.strip_reader is not None
            if len(pc.crops) or len(tc) or id(m) in agreed or strip_asked:
                if strip_asked:
                    strips.append(ST.strip_canvas(view))
                    strip_owner.append(len(asked))
                crops.append(pc.crops)
                boxes.append(pc.boxes)
                owner += [len(asked)] * len(pc.crops)
                tips += list(tc)
                tip_owner += [len(asked)] * len(tc)
                asked.append((m, i, shown))
        if not asked:
            return 0
        every = np.concatenate(crops + ([np.stack(tips)] if tips else []))
        read = (
            self.pip_reader.run(None, {"crop": F.to_tensor(every)})[0] if len(every) else np.zeros((0, 5), np.float32)
        )
        read, tip_read = read[: len(owner)], read[len(owner) :]
        owner_a, tip_owner_a = np.array(owner), np.array(tip_owner)
        strip_read = (
            dict(zip(strip_owner, self.strip_reader.run(None, {"strip": F.to_tensor(np.stack(strips))})[0]))
            if strips
            else {}
        )
        n = 0
        for k, (m, i, shown) in enumerate(asked):
            mine = read[owner_a == k]
            suit_p, looks = P.suit_of_pips(mine, rule.none_max)
            tip_suit = None
            strip_suit = strip_read.get(k)
            if strip_suit is not None and strip_suit.max() < rule.strip_sure:
                strip_suit = None
            if len(tip_read) and (suit_p is None or suit_p.max() < rule.suit_sure):
                my_tips = tip_read[tip_owner_a == k]
                tip_p, tip_looks = P.suit_of_pips(my_tips, rule.none_max)
                if tip_p is not None and P.pips_agree(my_tips, rule.none_max):
                    sure = rule.tip_sure if tip_looks >= 2 else rule.tip_one_sure
                    tip_suit = tip_p if tip_p.max() >= sure else None
            if m.card is not None:  # a doubtful read: kept unless its pips surely name its twin suit
                if suit_p is None or suit_p.max() < rule.veto or not _twin_suit(m.card.suit, int(suit_p.argmax())):
                    continue
                # left UU: read again with its pips' suit, it came out wrong on a held-out design
                # (a 4 of diamonds whose pips the reader named hearts); nor may the
                # one-of-each-card rule read it back
                m.card, m.how, m.belief = None, "", None
                continue
            p = probs[i]
            second = seconds.get(id(m))
            if second is not None:
                p = _weighed(p, second, self.band_weight if m.strip else self.face_weight)
            rank_p, card_suit = p.reshape(4, 13).sum(0), p.reshape(4, 13).sum(1)
            told, how = False, "pips"
            r = int(rank_p.argmax()) + 1
            if suit_p is not None and suit_p.max() >= rule.suit_sure and r <= 10 and _same_colour(card_suit, suit_p):
                card_suit = _weighed(card_suit, suit_p, rule.weight)
                told = True
            elif tip_suit is not None and 2 <= r <= 10 and _same_colour(card_suit, tip_suit):
                # two or more tips of the top row's pips, each naming the suit (an ace's
                # one pip lies in the middle, a court's picture holds no pips)
                card_suit = _weighed(card_suit, tip_suit, rule.weight)
                told = True
            elif strip_suit is not None and 2 <= r <= 10 and _same_colour(card_suit, strip_suit):
                # the strip reader, sure of the suit from the whole band of a number card (a
                # court's picture holds no suit a design must show)
                card_suit = _weighed(card_suit, strip_suit, rule.weight)
                told, how = True, "strip"
            if shown >= 1.0 and 2 <= r <= 10 and P.pip_count(mine, boxes[k], rule.none_max) == r:
                rank_p = _sure_rank(r, _COUNTED_RANK)
                told = True
            elif id(m) in agreed and (
                r >= 2 and looks >= 2 and P.pips_agree(mine, rule.none_max)
                if told
                else card_suit.max() >= rule.suit_sure
            ):
                # the readers' rank, with a suit told by two pips or more of a number card
                # that each name it (an ace's one pip, or its ornament, is too little), or
                # by the corners and face reader as surely as the pips must tell one
                rank_p = _sure_rank(agreed[id(m)], self.agreed_rank)
                told = True
            if not told:
                continue
            p = (card_suit[:, None] * rank_p[None, :]).ravel()
            j = int(p.argmax())
            conf = float(p[j]) * float(kind[i, 0] + kind[i, 1])
            if conf >= rule.thresh:  # a card left UU keeps its corners' likeliest (the familiar rule's)
                m.card = m.likely = Card.from_index(j)
                m.conf, m.how = conf, how
                n += 1
        return n

    def _read_turned(self, frame_bgr: np.ndarray, unread: list[_Mark]) -> int:
        """Read again the face-up ``unread`` marks (not read sure: ``UU``, or in the live
        coach, which reads down to its guess floor, a guess) as if turned on the table by
        each of ``turn_tries`` degrees more than the locator says: its angle runs short for
        cards lying far askew (off by 10 degrees at the median for cards turned 20 or more),
        and a corner cut at the wrong turn reads unsure. Only marks the locator finds turned
        by ``turn_min`` degrees or more are read again: straight cards gain nothing from it,
        and the surest of several reads of an unusual design is more often a wrong card. A
        mark takes the surest of these reads, and its turn, where that read is sure (at the
        thresholds of :meth:`_sure_thresholds`; else a ``UU`` mark keeps it as its likeliest
        card for the familiar-deck rule); returns how many did."""
        unread = [m for m in unread if abs(math.degrees(m.angle)) >= self.turn_min]
        sure_w, sure_s = self._sure_thresholds()
        if not unread:
            return 0
        tries = [math.radians(t) for t in self.turn_tries]
        cuts = []
        for m in unread:
            for t in tries:
                a = m.angle + t
                c, s = math.cos(a), math.sin(a)
                cuts.append(((m.x, m.y), (m.w * c, m.w * s), (-m.h * s, m.h * c)))
        kind, rank, suit, _ = self.read_cuts(frame_bgr, cuts)
        probs = model_card_probs(rank, suit)
        read = 0
        for k, m in enumerate(unread):
            rows = range(k * len(tries), (k + 1) * len(tries))
            confs = [
                float(probs[i].max() * (kind[i, 0] + kind[i, 1])) if kind[i, 0] > kind[i, 1] else 0.0 for i in rows
            ]
            # the reads in turn order, the locator's own (the mark's likeliest card) among them
            turns = sorted(
                [(t, int(probs[i].argmax())) for t, i in zip(tries, rows)] + [(0.0, _index(m.card or m.likely))]
            )
            cards = [c for _, c in turns]
            best = int(np.argmax(confs))
            at = turns.index((tries[best], int(probs[rows[best]].argmax())))
            # a read is believed where a read one turn-step beside it finds the same card
            # (a card turned that far reads alike a few degrees either way; the index of the
            # next card of a fan, caught by one cut, does not)
            if cards[at] not in cards[max(0, at - 1) : at] + cards[at + 1 : at + 2]:
                continue
            if confs[best] >= (sure_s if m.strip else sure_w):
                m.card, m.conf, m.angle = Card.from_index(cards[at]), confs[best], m.angle + tries[best]
                m.how = "turned"
                read += 1
            elif m.card is None and confs[best] > m.conf:
                m.likely, m.conf = Card.from_index(cards[at]), confs[best]
        return read

    def _locate_turned(self, frame_bgr: np.ndarray, lean: list[_Mark], deg: float) -> list[_Mark]:
        """The locator's face-up marks in the part of the frame about the marks ``lean``
        (three card sizes about them), that part turned ``deg`` degrees counter-clockwise
        (the way that makes cards turned clockwise by as much lie straight), mapped back
        into the frame as given, their angles with it."""
        fh, fw = frame_bgr.shape[:2]
        pad = 3.0 * max(max(m.w, m.h) for m in lean)
        x0, y0 = max(0, int(min(m.x for m in lean) - pad)), max(0, int(min(m.y for m in lean) - pad))
        x1, y1 = min(fw, int(max(m.x for m in lean) + pad)), min(fh, int(max(m.y for m in lean) + pad))
        part = frame_bgr[y0:y1, x0:x1]
        h, w = part.shape[:2]
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)  # cv2: positive is counter-clockwise
        c, s = abs(rot[0, 0]), abs(rot[0, 1])
        nw, nh = int(h * s + w * c), int(h * c + w * s)
        rot[0, 2] += nw / 2 - w / 2
        rot[1, 2] += nh / 2 - h / 2
        turned = cv2.warpAffine(part, rot, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        back = cv2.invertAffineTransform(rot)
        # the locator sees the cards at the size it sees them in the whole frame
        width = max(32, int(round(self.locator_width * nw / fw / 8)) * 8)
        marks = []
        for m in _suppress(self.locate(turned, width)):
            if m.kind == 0 and m.score >= 0.5:
                x, y = back @ np.array([m.x, m.y, 1.0])
                marks.append(
                    _Mark(float(x) + x0, float(y) + y0, m.w, m.h, m.score, 0, angle=m.angle + math.radians(deg))
                )
        return marks

    def _read_askew(self, frame_bgr: np.ndarray, kept: list[_Mark]) -> list[_Mark]:
        """Look again, with the locator, at a frame whose face-up cards lie askew and read
        unsure: the locator finds cards turned 20 degrees or more poorly (their angle runs
        short, their corner is off, some are not found at all), so the frame is turned
        ``askew_turn`` degrees against them (each way the unread ones lean) and the locator
        run on that, where those cards lie nearly straight. Its marks, mapped back into the
        frame, are read here at their own corner and angle: an unread mark at the same place
        takes a sure read (where the read 5 degrees to one side finds the same card); a
        card found only there is added where it reads sure, is no card already read, and
        sits on no other mark. Returns the added marks."""
        sure_w, sure_s = self._sure_thresholds()
        unread = [
            m
            for m in kept
            if m.kind == 0 and m.conf < (sure_s if m.strip else sure_w) and abs(math.degrees(m.angle)) >= self.turn_min
        ]
        if not unread:
            return []
        found: list[_Mark] = []
        for sign in sorted({1 if m.angle > 0 else -1 for m in unread}):
            lean = [m for m in unread if (m.angle > 0) == (sign > 0)]
            found += self._locate_turned(frame_bgr, lean, sign * self.askew_turn)
        unread_ids = {id(m) for m in unread}
        todo: list[tuple[_Mark, _Mark | None]] = []
        for f in found:
            near = [o for o in kept if abs(o.x - f.x) < 0.3 * o.w and abs(o.y - f.y) < 0.15 * o.h]
            if near:
                # the nearest mark, if unread, is the same card found a little off
                o = min(near, key=lambda o: math.hypot(o.x - f.x, o.y - f.y))
                if id(o) in unread_ids:
                    todo.append((f, o))
            else:
                todo.append((f, None))
        if not todo:
            return []
        step = math.radians(5.0)
        cuts = []
        for f, _ in todo:
            for t in (0.0, -step, step):
                a = f.angle + t
                cs, sn = math.cos(a), math.sin(a)
                cuts.append(((f.x, f.y), (f.w * cs, f.w * sn), (-f.h * sn, f.h * cs)))
        kind, rank, suit, _ = self.read_cuts(frame_bgr, cuts)
        probs = model_card_probs(rank, suit)
        read_cards = {m.card for m in kept if m.card is not None}
        added: list[_Mark] = []
        for k, (f, old) in enumerate(todo):
            i = 3 * k
            if kind[i, 0] <= kind[i, 1] or kind[i, 2] >= self.none_thresh:
                continue
            j = int(probs[i].argmax())
            conf = float(probs[i, j] * (kind[i, 0] + kind[i, 1]))
            strip = old.strip if old is not None else True
            if conf < (sure_s if strip else sure_w) or j not in (
                int(probs[i + 1].argmax()),
                int(probs[i + 2].argmax()),
            ):
                continue
            card = Card.from_index(j)
            if card in read_cards:
                continue
            if old is not None:
                old.card, old.conf, old.angle, old.x, old.y = card, conf, f.angle, f.x, f.y
                old.how = "askew"
            else:
                f.card, f.conf, f.strip, f.how = card, conf, True, "askew"
                added.append(f)
            read_cards.add(card)
        return added

    # ------------------------------------------------------------------ main step
    def detect(self, frame_bgr: np.ndarray) -> DetectionResult:
        """Find and read every card in the frame and put them in their slots; a frame that is
        no BGR picture raises :class:`FrameError` saying what it is (see :func:`check_frame`).

        A frame wider than ``MAX_READ_WIDTH`` is first reduced to it by area averaging (a
        phone's 4000x3000 photo reads as the same photo at 1920 wide), and a dim frame is
        brightened (:func:`lift_exposure`: a dim room, a camera that does not make up for
        it). Which way is up comes
        from the cards themselves: the frame is read as it is turned by ``orientation``
        (0, 90, 180 or 270 degrees clockwise; a calibration's ``orientation`` fixes it), and
        while that is not settled, a frame that reads poorly is also read turned the other
        three ways, and a turn that reads decisively more cards (at least 4 more, and half
        as many again) is taken and kept for the next frames. Quads are always in the pixels of the frame as given."""
        t0 = time.perf_counter()
        check_frame(frame_bgr)
        factor = 1.0
        if frame_bgr.shape[1] > MAX_READ_WIDTH:
            factor = MAX_READ_WIDTH / frame_bgr.shape[1]
            frame_bgr = cv2.resize(
                frame_bgr,
                (MAX_READ_WIDTH, max(1, int(round(frame_bgr.shape[0] * factor)))),
                interpolation=cv2.INTER_AREA,
            )
        frame_bgr = lift_exposure(frame_bgr)
        fixed = self.calibration.get("orientation") if self.calibration else None
        turn = int(fixed) if fixed is not None else self.orientation
        snap, kept = self._detect_turned(frame_bgr, turn)
        read_turn = turn
        if fixed is None and not self.orientation_settled and _reads_poorly(kept):
            tries = {turn: (snap, kept)}
            for other in (0, 90, 180, 270):
                if other not in tries:
                    tries[other] = self._detect_turned(frame_bgr, other)
            best = max(tries, key=lambda k: (_read_score(tries[k][1]), k == turn))
            here, there = _read_score(kept), _read_score(tries[best][1])
            # another turn must read decisively more: a fresh deal (no fanned cards) or a grid
            # of cards whose indices read alike upside down is no reason to turn the picture
            if best != turn and there >= here + max(4.0, 0.5 * here):
                snap, kept = tries[best]
                read_turn = best
                self.orientation = best
                self.orientation_settled = True
        elif fixed is None and not _reads_poorly(kept) and _read_score(kept) >= 5:
            self.orientation_settled = True  # a good read as it is: this camera's frames are upright
        cards = [CardDetection(m.card, _quad(m) / factor, m.conf, m.slot, m.kind == 0, m.strip) for m in kept]
        # the marks' places are in the frame turned as it was read: so is the look at its pixels
        upright = cv2.rotate(frame_bgr, _ROTATE_CODES[read_turn]) if read_turn else frame_bgr
        down, stock = _down_counts(kept, upright)
        faces, share = _sure_share(kept, *self._sure_thresholds())
        return DetectionResult(
            snap,
            cards,
            (time.perf_counter() - t0) * 1000.0,
            down,
            stock,
            share if faces >= UNFAMILIAR_MIN_CARDS else None,
        )

    def _sure_thresholds(self) -> tuple[float, float]:
        """The thresholds at which a read is sure (whole card, strip): the detector's own, or
        where the live coach judges unsure reads itself (it lowers ``read_thresh`` and keeps
        the detector's in ``sure_thresh``, see app/judgement.py) the ones it keeps."""
        return (
            float(getattr(self, "sure_thresh", self.read_thresh)),
            float(getattr(self, "sure_strip_thresh", self.strip_thresh)),
        )

    def _detect_turned(self, frame_bgr: np.ndarray, turn: int) -> tuple[Snapshot, list[_Mark]]:
        """The snapshot and the slotted marks of the frame turned ``turn`` degrees clockwise,
        the marks' positions mapped back into the frame as given."""
        if not turn:
            return self._detect_upright(frame_bgr, self.calibration)
        h, w = frame_bgr.shape[:2]
        turned = cv2.rotate(frame_bgr, _ROTATE_CODES[turn])
        snap, kept = self._detect_upright(turned, _turn_calibration(self.calibration, turn, w, h))
        for m in kept:
            m.quad = _unturn(_quad(m), turn, w, h)
        return snap, kept

    def _detect_upright(self, frame_bgr: np.ndarray, calibration: dict | None) -> tuple[Snapshot, list[_Mark]]:
        """Find and read every card of an upright frame; the snapshot and the slotted marks."""
        marks = _suppress(self.locate_any_scale(frame_bgr))
        # a back the locator is sure of needs no reading; everything else is read
        sure_back = [m for m in marks if m.kind == 1 and m.score >= self.back_sure]
        for m in sure_back:
            m.conf = m.score
        marks = [m for m in marks if not (m.kind == 1 and m.score >= self.back_sure)]
        # the top card of a pile also shows its index upside down at the bottom right:
        # read it too, and believe a card only when both corners agree
        uncovered = _uncovered(marks)
        both = [m for m in marks if m.kind == 0 and id(m) in uncovered]
        # where each read is cut: (corner, width vector, height vector) of the card
        cuts = [((m.x, m.y), *m.axes()) for m in marks]
        row = {id(m): i for i, m in enumerate(marks)}  # each mark's row in the reads
        learnt = self._reads_learnt_deck
        first = None  # the own corners' reads, where read on their own first
        both_far = both  # the whole cards read at their far corner too
        if self.far_sure < 1.0 and not learnt and cuts:
            # the own corners first: in a frame of a deck the reader knows (far_share of its
            # face-up cards or more read surely there), a whole card read at far_sure or surer
            # there needs no second look at its far corner (a third of a real layout's reads,
            # the reader's time being most of a frame's); in other frames every whole card's
            # far corner is read, as it catches confident misreads of unknown designs
            first = self.read_cuts(frame_bgr, cuts)
            sure_p = model_card_probs(first[1], first[2]).max(1) * (first[0][:, 0] + first[0][:, 1])
            # (sure as the detector's own threshold: the live coach lowers read_thresh to look at guesses)
            if _share_read(first[0], sure_p, self._sure_thresholds()[0], self.none_thresh) >= self.far_share:
                both_far = [m for m in both if sure_p[row[id(m)]] < self.far_sure]
        extra = []  # (mark, cut): more reads of the cards that show more than a strip
        for m in both_far:
            (ux, uy), (vx, vy) = m.axes()
            extra.append((m, (m.far_corner(), (-ux, -uy), (-vx, -vy))))
            # a wider cut, for decks whose small suit sits lower than the usual patch reaches
            z = self.zoom
            if z > 1.0:
                (zux, zuy), (zvx, zvy) = m.axes(z)
                extra.append((m, ((m.x, m.y), (zux, zuy), (zvx, zvy))))
                extra.append((m, (m.far_corner(), (-zux, -zuy), (-zvx, -zvy))))
        if first is None:
            kind, rank, suit, emb = self.read_cuts(frame_bgr, cuts + [c for _, c in extra])
        else:
            more = self.read_cuts(frame_bgr, [c for _, c in extra])
            kind, rank, suit, emb = (np.concatenate([a, b]) for a, b in zip(first, more))
        shipped = model_card_probs(rank, suit)
        probs = self._with_deck(shipped, emb, self.head)
        if self.deck_reader is not None:
            part = [0 if id(m) in uncovered else 2 for m in marks] + [
                int(c[0] != cuts[row[id(m)]][0]) for m, c in extra
            ]
            owner = list(range(len(marks))) + [row[id(m)] for m, _ in extra]
            probs = self.deck_reader.combine(frame_bgr, cuts + [c for _, c in extra], part, owner, probs)
        model_probs = None if self.head is None and self.refs is None else shipped
        second: dict[int, list[int]] = {}
        for k, (m, _) in enumerate(extra):
            second.setdefault(id(m), []).append(len(marks) + k)
        to_face = both
        if self.face_reader is not None and self.face_mode == "unsure":
            # only the whole cards whose corners alone are not sure are read whole

            def corners_unsure(m: _Mark) -> bool:
                i = row[id(m)]
                extra_i = [k for k in second.get(id(m), []) if kind[k, 0] > 0.5]
                _, conf, _, _ = self._read_card(
                    probs, i, extra_i, float(kind[i, 0] + kind[i, 1]), False, self.read_thresh, self.strip_thresh
                )
                return conf < self.read_thresh

            to_face = [m for m in both if corners_unsure(m)]
        whole = self.read_faces(frame_bgr, to_face)
        face_of = {id(m): whole[k] for k, m in enumerate(to_face)} if whole is not None else {}
        face_alone = face_of  # the face reader's own reads (_with_bands returns a new dict)
        band_of: dict[int, np.ndarray] = {}
        if self.band_reader is not None:
            face_of, band_of = self._with_bands(frame_bgr, marks, kind, probs, second, uncovered, face_of)
        kept = list(sure_back)
        unsure: list[tuple[_Mark, int]] = []  # face-up marks left UU, and their row in probs
        for i, m in enumerate(marks):
            if kind[i, 2] >= self.none_thresh:
                continue
            if kind[i, 1] > kind[i, 0]:
                m.kind, m.conf = 1, float(kind[i, 1])
            else:
                m.kind = 0
                m.strip = id(m) not in uncovered
                extra_i = [k for k in second.get(id(m), []) if kind[k, 0] > 0.5]
                face = float(kind[i, 0] + kind[i, 1])
                m.card, m.conf, likeliest, m.belief = self._read_card(
                    probs, i, extra_i, face, m.strip, self.read_thresh, self.strip_thresh, face_of.get(id(m))
                )
                m.face, m.how = face, ("corners" if m.card is not None else "")
                if model_probs is not None:
                    # a learnt deck: the shipped model's own sure read (with its own thresholds)
                    # counts too where the learnt reader, less sure, still finds the same card
                    # likeliest; so learning a deck does not lose cards the model alone reads.
                    # Two sure reads that disagree give UU.
                    card0, conf0, _, m.model_belief = self._read_card(
                        model_probs,
                        i,
                        extra_i,
                        face,
                        m.strip,
                        self.model_read_thresh,
                        self.model_strip_thresh,
                        face_of.get(id(m)),
                    )
                    if m.card is None and card0 is not None and card0 is likeliest:
                        m.card, m.conf = card0, conf0
                    elif m.card is not None and card0 is not None and card0 is not m.card:
                        m.card, m.conf = None, min(m.conf, conf0)
                    elif m.card is None and card0 is None:
                        unsure.append((m, i))
                elif m.card is None:
                    m.likely = likeliest
                    unsure.append((m, i))
            kept.append(m)
        agreed = self._agreed_ranks(unsure, probs, face_alone, band_of)
        if self.top_right is not None and unsure:
            self._read_top_right(frame_bgr, unsure, probs, kind, marks + sure_back, band_of, agreed)
        # reads just over the threshold of whole, straight aces and number cards: their pips
        # may veto them; not in a frame of a deck the reader knows, where the corner reads
        # stand (the real photos' pips, large and blurred, named the twin suit of two cards
        # read right; a real strip's pips, that of a third)
        doubtful = []
        if self.pips is not None and not learnt:
            doubtful = [
                (m, i)
                for i, m in enumerate(marks)
                if m.card is not None
                and m.how in ("corners", "top right")
                and m.card.rank <= 10
                and m.conf < self.pips.doubt
                and not m.strip
                and abs(math.degrees(m.angle)) < _AGREE_MAX_TURN
            ]
            if (
                doubtful
                and self.familiar is not None
                and self.familiar.known(marks + sure_back, *self._sure_thresholds())
            ):
                doubtful = []
        if self.pip_reader is not None and (unsure or doubtful):
            self._read_pips(
                frame_bgr,
                [(m, i) for m, i in unsure if m.card is None],
                probs,
                kind,
                marks + sure_back,
                face_of,
                agreed,
                doubtful,
            )
        if self.turn_tries and not learnt:
            sure_w, sure_s = self._sure_thresholds()
            self._read_turned(frame_bgr, [m for m in kept if m.kind == 0 and m.conf < (sure_s if m.strip else sure_w)])
        if self.askew_turn and not learnt:
            kept += self._read_askew(frame_bgr, kept)
        sure_w, sure_s = self._sure_thresholds()
        if self.familiar is not None and not learnt:
            self.familiar.apply(kept, sure_w, sure_s)
        kept = [m for m in kept if _stands(m, sure_w, sure_s)]
        kept = _suppress(kept)
        _dedupe_cards(kept)
        # a learnt deck: the shipped model's own reads, at its own thresholds, count too
        model_thresh = (self.model_read_thresh, self.model_strip_thresh) if model_probs is not None else None
        if self.elsewhere is not None and self.elsewhere.apply(kept, sure_w, sure_s, model_thresh=model_thresh):
            _dedupe_cards(kept)  # two marks may have been given the one card left
        assign_slots(kept, frame_bgr.shape[1], calibration, frame_bgr.shape[0])
        _cover(kept)
        return build_snapshot(kept), kept


def _stands(m: _Mark, sure_whole: float, sure_strip: float) -> bool:
    """Whether a read mark is kept: any but the rows locator's faint marks (see
    :class:`RowsRule`), which stand only as face-up cards read at the detector's own
    thresholds (``sure_whole``, ``sure_strip``), not by the familiar-deck rule's lower one."""
    if not m.faint:
        return True
    return m.kind == 0 and m.card is not None and m.conf >= (sure_strip if m.strip else sure_whole)


def _roomy(width: int) -> bool:
    """Whether the locator looks at a whole frame at ``width`` set in room of its own
    (the coarsest widths, ``LOCATOR_PADDED_MAX`` and under: see :meth:`CardDetector.locate`)."""
    return width <= LOCATOR_PADDED_MAX


def _marks(out: np.ndarray, thresh: float, pad: int, scale: float) -> list[_Mark]:
    """The marks of a locator's output (its peaks over ``thresh``) in frame pixels, for an
    input set in ``pad`` pixels of room and scaled by ``scale``."""
    return [
        _Mark((x - pad) / scale, (y - pad) / scale, w / scale, h / scale, sc, kd, angle=a)
        for x, y, w, h, sc, kd, a in F.decode_peaks(out, thresh)
    ]


def _extra_reader(d: Path, entry, what: str, geom: F.PatchGeom, threads: int, sessions: ModelSessions):
    """((session, cut) or None, weight) of the ``what`` reader (face, band or index) that
    ``vision.json`` names in ``entry`` (``file``, optionally ``patch``, default ``geom``, and
    ``weight`` from 0 to 1, default 0.5); None and 0 where it names none."""
    if not entry:
        return None, 0.0
    try:
        reader = (
            _load_model(d / entry["file"], threads, sessions, f"{what} reader", "face"),
            F.PatchGeom.from_config(entry.get("patch", geom.to_config())),
        )
        weight = float(entry.get("weight", 0.5))
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight {weight} is not within 0..1")
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(
            f"{d / 'vision.json'}: {what}_reader must hold a file, optionally a patch and a weight from 0 to 1 ({exc})"
        ) from None
    return reader, weight


def _read_with(reader, patches, frame_bgr: np.ndarray, marks: list) -> np.ndarray | None:
    """N x 52 card probabilities of ``marks`` read by ``reader`` (an ONNX session and its
    cut, input ``face``); None without a reader."""
    if reader is None:
        return None
    if not marks:
        return np.zeros((0, 52), np.float32)
    session, geom = reader
    rank, suit = session.run(None, {"face": F.to_tensor(patches(frame_bgr, marks, geom))})
    return model_card_probs(rank, suit)


# ---------------------------------------------------------------------- familiar decks
@dataclass(frozen=True)
class FamiliarRule:
    """How sure a read must be once the frame shows a deck the reader knows.

    The reader's confidence runs lower on a real camera than on renders (blur, glare,
    lens), and lower still on unusual designs it never saw, where its few wrong reads are.
    One threshold cannot serve both: high enough to keep wrong reads of unusual designs
    out, it leaves a few percent of an ordinary deck's cards ``UU`` on a real camera.
    What tells the two apart is the frame itself: where at least ``share`` of at least
    ``min_cards`` face-up cards read at the model's thresholds, the deck is one the reader
    knows, and its other face-up cards are read at ``thresh`` (their likeliest card); an
    unusual deck (most cards unsure) keeps the strict thresholds. A learnt deck has its
    own thresholds and no such rule. Set in ``vision.json`` as ``"familiar": {"share":
    0.8, "min_cards": 4, "thresh": 0.6}``; the figures that chose it are in
    bench/RESULTS.md (2026-11-27, familiar decks)."""

    share: float
    min_cards: int
    thresh: float

    @classmethod
    def from_config(cls, cfg, where: Path) -> FamiliarRule | None:
        """The rule of a model folder's ``vision.json`` entry (None when it has none);
        :class:`ModelError` naming the file when the entry is malformed."""
        if cfg is None:
            return None
        try:
            rule = cls(float(cfg["share"]), int(cfg["min_cards"]), float(cfg["thresh"]))
        except (KeyError, TypeError, ValueError):
            raise ModelError(
                f"{where}: familiar must be an object with share, min_cards and thresh numbers, not {json.dumps(cfg)}"
            ) from None
        if not (0.0 <= rule.share <= 1.0 and 0.0 <= rule.thresh <= 1.0 and rule.min_cards >= 1):
            raise ModelError(f"{where}: familiar's share and thresh must lie in 0..1 and min_cards be 1 or more")
        return rule

    def known(self, marks: list[_Mark], whole_thresh: float, strip_thresh: float) -> bool:
        """Whether ``marks`` show a deck the reader knows (at least ``share`` of at least
        ``min_cards`` face-up cards read at the model's thresholds)."""
        faces, share = _sure_share(marks, whole_thresh, strip_thresh)
        return faces >= self.min_cards and share >= self.share

    def apply(self, marks: list[_Mark], whole_thresh: float, strip_thresh: float) -> int:
        """Read the ``UU`` face-up ``marks`` whose likeliest card is at least ``thresh`` sure
        when the frame's deck is familiar; returns how many were read."""
        if not self.known(marks, whole_thresh, strip_thresh):
            return 0
        faces = [m for m in marks if m.kind == 0]
        read = 0
        for m in faces:
            if m.card is None and m.likely is not None and m.conf >= self.thresh:
                m.card, m.how, read = m.likely, "familiar", read + 1
        return read


# a frame with fewer face-up cards than this says nothing of how well its deck reads
UNFAMILIAR_MIN_CARDS = 4


@dataclass(frozen=True)
class TopRightRule:
    """When a face-up card whose corners read unsure takes its suit from its top-right corner
    (``top_right`` in vision.json, see :meth:`CardDetector._read_top_right`): the mirrored
    corner's suit at least ``suit_sure`` and its rank below ``rank_none`` (a suit alone, no
    index there), and the card so made at least ``thresh`` (its own threshold: a card put
    together from two places of a design the reader does not know; the shipped 0.85 is
    ``read_thresh``'s, as 0.9 kept only half of what it reads on designs of this kind).
    Where the index reader alone names the rank at ``index_sure`` or surer, that rank is
    taken as sure (at ``agreed_rank``) and the corners' rank is not weighed in (optional;
    1, the default, never): the corner reader, which never saw the world's fonts, can be
    surely wrong (tango's 9 read as a Q at 0.92) where the index reader, trained on 150
    font designs, is right; see docs "The index reader's sure rank" for the figures."""

    suit_sure: float
    rank_none: float
    thresh: float
    index_sure: float = 1.0

    @classmethod
    def from_config(cls, cfg, where: Path) -> TopRightRule | None:
        """The rule of vision.json's ``top_right`` entry (None when absent or empty);
        ModelError naming ``where`` when it is malformed."""
        return _probability_rule(cls, cfg, where, "top_right", ("suit_sure", "rank_none", "thresh"), ("index_sure",))


@dataclass(frozen=True)
class RowsRule:
    """The second locator, trained also on rows of cards overlapped sideways (a row of 13 of
    which each shows a strip a fifth of its width; ``training/train_vision.py
    --only-locator --spread``): it finds the strips the main locator misses, but alone it
    also marks faint table corners and card edges as cards (the recorded games' pictures:
    99.3% -> 80% read), so it only adds. A face-up mark of it (``thresh`` or surer) is added
    where it is not one of the main locator's marks found again (see :meth:`new_faces`) and
    the card lies at least half inside the frame; its backs are never added (a back it
    finds beside the stock pile is the table's corner, and backs lie in columns, which the
    main locator finds). Its face-up marks from ``faint`` up to ``thresh`` are added too
    where they are the strip of a row (another face-up card lies over their top-right
    corner) and no mark already taken is that card (see :meth:`added`), but kept only where
    they are read as a card at the model's own thresholds (not the familiar-deck rule's): a
    faint mark left UU, read as a back or read less surely is dropped after reading (it
    would put a UU over a slot's card, or read a turned card's far half as another).
    Measured in docs/vision-and-training.md, "Rows fanned sideways: a second locator that
    only adds" and "Cheaper frames, a lone large card, faint strips of a row"."""

    file: str
    thresh: float = 0.5
    same: float = 0.3
    distinct: float = 0.12
    fanned: int = 2
    faint: float | None = None  # None: as ``thresh`` (no faint marks)

    @property
    def least(self) -> float:
        """The least score of a rows-locator mark looked at."""
        return self.thresh if self.faint is None else min(self.faint, self.thresh)

    def added(self, marks: list[_Mark], found: list[_Mark], frame_w: int, frame_h: int) -> list[_Mark]:
        """The marks of ``found`` (the rows locator's, from :attr:`least`) to add to the main
        locator's ``marks``: its sure ones (``thresh`` or surer) that :meth:`new_faces` finds
        new, then its faint ones new to those and ``marks`` alike that another face-up card
        covers at their top right (a row's strips; a card pictured on a back lies alone),
        flagged ``faint``."""
        sure = self.new_faces(marks, [e for e in found if e.score >= self.thresh], frame_w, frame_h)
        faces = [m for m in marks + found if m.kind == 0]
        weak = [e for e in found if self.least <= e.score < self.thresh and _covered_right(e, faces)]
        faint = self.new_faces(marks + sure, weak, frame_w, frame_h)
        for e in faint:
            e.faint = True
        return sure + faint

    def wanted(self, marks: list[_Mark]) -> bool:
        """Whether the main locator's ``marks`` show cards overlapped sideways: ``fanned``
        face-up cards or more with another lying over their top-right corner (a waste of
        three fanned to the right is two). Only then is the rows locator run: it costs a
        second locator look, about 6 ms at 640x360 on 2 cores."""
        faces = [m for m in marks if m.kind == 0]
        return sum(_covered_right(m, faces) for m in faces) >= self.fanned

    @classmethod
    def from_config(cls, cfg, where: Path) -> RowsRule | None:
        """The rule of vision.json's ``rows_locator`` entry (None when absent or empty);
        ModelError naming ``where`` when it is malformed."""
        if not cfg:
            return None
        file = cfg.get("file") if isinstance(cfg, dict) else None
        if not file or not _in_folder(file):
            raise ModelError(
                f"{where}: rows_locator's file must name the rows locator's ONNX file in the model folder, "
                f"not {json.dumps(file)}"
            )
        vals = {k: cfg[k] for k in ("thresh", "same", "distinct", "faint") if k in cfg}
        fanned = cfg.get("fanned", 2)
        if isinstance(fanned, bool) or not isinstance(fanned, int) or fanned < 0:
            raise ModelError(
                f"{where}: rows_locator's fanned must be a whole number of cards, not {json.dumps(fanned)}"
            )
        return cls(file, fanned=fanned, **_probabilities(vals, "rows_locator's", where))

    def new_faces(self, marks: list[_Mark], found: list[_Mark], frame_w: int, frame_h: int) -> list[_Mark]:
        """The face-up marks of ``found`` that no mark of ``marks`` already is, of cards at
        least half inside the ``frame_w`` x ``frame_h`` frame (the card's width and height
        from its corner: a column running off the frame's edge is no new column). Each of
        ``marks`` is the nearest face-up mark found within ``same`` of a card of it (the
        rows locator finding that card again); any other is new unless its corner lies
        within ``distinct`` of a card of one of ``marks`` (a strip of a row shows a fifth to
        a third of a card, so its corner lies within ``same`` of the next card's)."""
        faces = [e for e in found if e.kind == 0 and e.x + e.w / 2 <= frame_w and e.y + e.h / 2 <= frame_h]

        def apart(e: _Mark, m: _Mark) -> float:  # how far apart two corners are, in cards
            return max(abs(e.x - m.x) / max(m.w, e.w), abs(e.y - m.y) / max(m.h, e.h))

        again: set[int] = set()  # the faces that are one of ``marks`` found again
        for m in marks:
            near = [(apart(e, m), i) for i, e in enumerate(faces) if i not in again]
            if near and min(near)[0] < self.same:
                again.add(min(near)[1])
        return [e for i, e in enumerate(faces) if i not in again and all(apart(e, m) >= self.distinct for m in marks)]


@dataclass(frozen=True)
class PipRule:
    """When a face-up card left unsure takes its suit from its pips (``pips`` in vision.json,
    see :meth:`CardDetector._read_pips`): the pip reader's ONNX ``file``; a blob counts as a
    pip where the reader's "no pip" is under ``none_max``; the pips' suit must be at least
    ``suit_sure``; it is weighed into the corners' suit at ``weight``; the card so made is
    read at ``thresh`` or more. An ace or number card read under ``doubt`` (by its corners
    or the top right) whose pips name the other suit of its colour at ``veto`` or surer is
    taken back and left UU (optional; 0 and 1, the defaults, never); only whole cards
    lying straight, in frames of a deck the reader does not know. On the 18 top-right
    designs (60 scenes) 9 of their 14 wrong cards were such corner reads; with the veto
    (doubt 0.97, veto 0.99) 8 wrong cards are left, and the validation designs' 4 are 3,
    with no card read right lost on either (bench/RESULTS.md, 2026-11-30, the pips' veto).
    A strip left UU takes the suit of the tips of its top pips where two or more agree at
    ``tip_sure`` or surer, or a lone tip reads it at ``tip_one_sure`` or surer (optional; 1,
    the default, never). Where neither pips nor tips tell, the strip reader
    (``strip_file``, see :mod:`.strips`) may: its suit at ``strip_sure`` or surer, of the
    colour the card gives, on an ace-less number card (2-10) (optional; no file, the
    default, no strip reader). At 0.999 it read 7 cards more right and none more wrong on
    the held-out, validation and 18 top-right designs; at 0.99, 18 more and 2 more wrong
    (bench/RESULTS.md, stop 68)."""

    file: str
    none_max: float
    suit_sure: float
    weight: float
    thresh: float
    doubt: float = 0.0
    veto: float = 1.0
    tip_sure: float = 1.0
    tip_one_sure: float = 1.0
    strip_file: str = ""
    strip_sure: float = 1.0

    @classmethod
    def from_config(cls, cfg, where: Path) -> PipRule | None:
        """The rule of vision.json's ``pips`` entry (None when absent or empty); ModelError
        naming ``where`` when it is malformed."""
        if not cfg:
            return None
        names = ("none_max", "suit_sure", "weight", "thresh")
        try:
            file = cfg["file"]
            vals = {k: cfg[k] for k in names}
            vals.update({k: cfg[k] for k in ("doubt", "veto", "tip_sure", "tip_one_sure", "strip_sure") if k in cfg})
            strip_file = cfg.get("strip_file", "")
        except (KeyError, TypeError):
            raise ModelError(f"{where}: pips must hold file, {', '.join(names)}") from None
        if not isinstance(file, str) or not file:
            raise ModelError(f"{where}: pips' file must name the pip reader's ONNX file, not {json.dumps(file)}")
        if not isinstance(strip_file, str):
            raise ModelError(
                f"{where}: pips' strip_file must name the strip reader's ONNX file, not {json.dumps(strip_file)}"
            )
        return cls(file, **_probabilities(vals, "pips'", where), strip_file=strip_file)


@dataclass(frozen=True)
class ElsewhereRule:
    """A deck holds each card once (``elsewhere`` in vision.json): a face-up card left UU
    is not any card read elsewhere in the same frame. Those cards are set aside from its
    probabilities (the rest scaled up to the same total), and the card is read where its
    likeliest remaining card comes out at least ``thresh`` (the read threshold's 0.85: as
    sure as any read). A card that looks more like the cards set aside than ``max_share``
    is left UU: it is more likely a second look at one of them, misread, than another
    card. What this reads most is a fanned strip whose rank and colour show and whose suit
    the next card hides, where the other card of that rank and colour lies elsewhere. The
    figures that chose 0.5 and 0.85 are in bench/RESULTS.md (2026-11-30, a card once)."""

    max_share: float
    thresh: float

    @classmethod
    def from_config(cls, cfg, where: Path) -> ElsewhereRule | None:
        """The rule of vision.json's ``elsewhere`` entry (None when absent or empty);
        ModelError naming ``where`` when it is malformed."""
        return _probability_rule(cls, cfg, where, "elsewhere", ("max_share", "thresh"))

    def read(
        self, belief: np.ndarray, face: float, elsewhere: np.ndarray, thresh: float = 0.0
    ) -> tuple[Card | None, float]:
        """(card or None, confidence) of a mark whose 52 card probabilities are ``belief``
        (see :meth:`CardDetector._read_card`) and that is a face at ``face``, when the cards of
        the boolean mask ``elsewhere`` lie elsewhere, read at the rule's threshold or
        ``thresh`` if higher. Nothing set aside, nothing changes: the confidence is the
        detector's own."""
        aside = float(belief[elsewhere].sum())
        if aside > self.max_share or aside >= 1.0:
            return None, 0.0
        q = np.where(elsewhere, 0.0, belief) / (1.0 - aside)
        j = int(q.argmax())
        conf = float(min(1.0, q[j])) * face
        return (Card.from_index(j) if conf >= max(self.thresh, thresh) else None), conf

    def apply(
        self,
        marks: list[_Mark],
        whole_thresh: float = 0.0,
        strip_thresh: float = 0.0,
        model_thresh: tuple[float, float] | None = None,
    ) -> int:
        """Read the face-up ``marks`` left UU, each against the cards the others read, at
        no lower a threshold than the detector's sure ones (``whole_thresh``,
        ``strip_thresh``: a learnt deck's own are higher, and its reads' probabilities,
        set aside so, read 5 wrong cards of 1,225 on the held-out designs). With a learnt
        deck, ``model_thresh`` (whole, strip): a mark the learnt reads leave UU is read by
        the shipped model's own probabilities (``model_belief``) at these thresholds where
        the learnt reads find the same card likeliest of those left (the learnt strip
        thresholds, 0.94-0.99, had dropped such reads: held-out designs learnt 85.9 -> 87.3%
        read, no card more wrong). Returns how many were read (two may come out as the same
        card: the caller settles that as for any read)."""
        elsewhere = np.zeros(52, bool)
        for m in marks:
            if m.kind == 0 and m.card is not None:
                elsewhere[m.card.index] = True
        read = 0
        for m in marks:
            if m.kind != 0 or m.card is not None or m.belief is None:
                continue
            card, conf = self.read(m.belief, m.face, elsewhere, strip_thresh if m.strip else whole_thresh)
            if card is None and model_thresh is not None and m.model_belief is not None:
                # a learnt deck: the shipped model's probabilities, so set aside, read at its
                # own thresholds where the learnt reads find the same card likeliest of those
                # left (as a learnt deck's other reads count the model's sure ones)
                model_card, model_conf = self.read(
                    m.model_belief, m.face, elsewhere, model_thresh[1] if m.strip else model_thresh[0]
                )
                if model_card is not None and int(np.where(elsewhere, 0.0, m.belief).argmax()) == model_card.index:
                    card, conf = model_card, model_conf
            if card is not None:
                m.card, m.conf, m.how = card, conf, "elsewhere"
                read += 1
        return read


def _probability_rule(cls, cfg, where: Path, name: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()):
    """The rule ``cls`` made of vision.json's ``name`` entry ``cfg``, whose settings
    ``keys`` (and ``optional`` ones, where given) are numbers from 0 to 1 (None when the
    entry is absent or empty); ModelError naming ``where`` when it is malformed."""
    if not cfg:
        return None
    try:
        vals = {k: cfg[k] for k in keys}
        vals.update({k: cfg[k] for k in optional if k in cfg})
    except (KeyError, TypeError):
        raise ModelError(f"{where}: {name} must hold {', '.join(keys[:-1])} and {keys[-1]}") from None
    return cls(**_probabilities(vals, f"{name}'s", where))


def _probabilities(vals: dict, owner: str, where: Path) -> dict[str, float]:
    """``vals`` (a rule's settings in vision.json) as floats, each checked to be a number
    from 0 to 1; ModelError naming ``where`` and the ``owner``'s setting otherwise."""
    for k, v in vals.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise ModelError(f"{where}: {owner} {k} must be a number from 0 to 1, not {json.dumps(v)}")
    return {k: float(v) for k, v in vals.items()}


def _shown(m: _Mark, marks: list[_Mark]) -> float:
    """The share of ``m``'s height that shows above the nearest mark lying over its lower
    part (the next card of a fanned column); 1 where none does."""
    (ux, uy), (vx, vy) = m.axes()
    shown = 1.0
    for o in marks:
        if o is m:
            continue
        dx, dy = o.x - m.x, o.y - m.y
        a = (dx * ux + dy * uy) / (m.w * m.w)  # along the card's width, in card widths
        b = (dx * vx + dy * vy) / (m.h * m.h)  # along its height, in card heights
        if -0.5 < a < 0.95 and 0.02 < b < shown:
            shown = b
    return shown


def _covered_right(m: _Mark, marks: list[_Mark]) -> bool:
    """Whether another mark lies over ``m``'s top-right corner (the next card of a waste
    fanned to the right, or any card beside it that overlaps it)."""
    for o in marks:
        if o is m:
            continue
        dx, dy = o.x - m.x, o.y - m.y
        if 0.05 * m.w < dx < 1.0 * m.w and -0.9 * m.h < dy < 0.45 * m.h:
            return True
    return False


def _share_read(kind: np.ndarray, conf: np.ndarray, thresh: float, none_thresh: float) -> float:
    """The share of the face-up reads (``kind``: face / back / no card, one row each) whose
    ``conf`` is ``thresh`` or more; 0 with fewer than 4 face-up reads."""
    up = (kind[:, 0] > kind[:, 1]) & (kind[:, 2] < none_thresh)
    return float((conf[up] >= thresh).mean()) if up.sum() >= 4 else 0.0


def _sure_share(marks: list[_Mark], whole_thresh: float, strip_thresh: float) -> tuple[int, float]:
    """How many face-up ``marks`` there are, and the share of them read at the thresholds."""
    faces = [m for m in marks if m.kind == 0]
    sure = sum(1 for m in faces if m.card is not None and m.conf >= (strip_thresh if m.strip else whole_thresh))
    return len(faces), sure / max(1, len(faces))


# ---------------------------------------------------------------------- helpers
# the locator's input widths, smallest first (a frame is scaled to one of them, see
# CardDetector.locate_any_scale) and the card widths, in locator pixels, it reads best:
# the size of the cards of its training scenes (about 640 / 12)
LOCATOR_WIDTHS = (160, 320, 640, 1280)
# at these widths and under, locate_any_scale sets the frame in a table of its own colour first
LOCATOR_PADDED_MAX = 160
LOCATOR_CARD_W = (26.0, 88.0)
# cards the locator finds this wide (locator px) or wider may be larger still, and over the
# second surely are: its sizes saturate near the top of LOCATOR_CARD_W (CardDetector._look_coarser)
LOCATOR_BIG_W = (60.0, 70.0)
# this many sure marks of an ordinary size are a table of cards, not a close camera's few
# large cards found in pieces: no glance at the coarsest width (CardDetector._look_coarser)
LOCATOR_TABLE_MARKS = 16
# wider frames are reduced to this by area averaging before reading
MAX_READ_WIDTH = 1920
# A dim frame is brightened before reading (see lift_exposure): where its brightest 0.5% of
# pixels (the cards' white paper) lie under DIM_BRIGHTEST grey, it is scaled so that they
# reach LIFTED_BRIGHTEST, by at most MAX_LIFT. The real webcam frames' paper lies at 158-228
# and the renders' at 205-255 (bench/RESULTS.md, stop 70): those are read as they come (at
# 170, suit_1's frame at 158 was lifted and one card of it left UU); the
# real layouts at 40% of their light (paper at 79-91) lost 5.8 points of cards read and
# gained 78 columns of phantom face-down cards. Lifted to 200 or 220, the overlapped rows
# of the stacked photos read 87-89% (96-97% at 190, the dimmer end of the real frames).
DIM_BRIGHTEST = 150.0
LIFTED_BRIGHTEST = 190.0
MAX_LIFT = 4.0
_ROTATE_CODES = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def _card_width(marks: list[_Mark], frame_w: int, width: int) -> float | None:
    """The median width, in locator pixels at locator width ``width``, of the marks the
    locator is sure of; None with fewer than two."""
    sure = [m.w for m in marks if m.score >= 0.5]
    if len(sure) < 2:
        return None
    size = float(np.median(sure)) * width / frame_w
    if size < LOCATOR_CARD_W[0] and len(sure) < 4:
        return None  # a few small marks are no evidence of small cards
    return size


def _read_score(kept: list[_Mark]) -> float:
    """How well a frame read: cards read, less one for each back lying below a face-up
    card of its column (a column's face-down cards lie under its face-up run, so upright
    they are above it)."""
    return sum(1.0 for m in kept if m.card is not None) - _backs_below(kept)


def _backs_below(kept: list[_Mark]) -> int:
    """Backs that lie below a face-up card of their own column."""
    top_face: dict[str, float] = {}
    for m in kept:
        if m.kind == 0 and m.slot.startswith("column "):
            top_face[m.slot] = min(m.y, top_face.get(m.slot, m.y))
    return sum(1 for m in kept if m.kind == 1 and m.slot in top_face and m.y > top_face[m.slot])


def _reads_poorly(kept: list[_Mark]) -> bool:
    """Whether a read may come from a frame turned the wrong way: fewer than three cards
    read, or under 60% of its face-up cards (a sideways face looks like a back or an
    unreadable face to the reader), or backs below a column's face-up cards (a layout
    upside down)."""
    faces = sum(m.kind == 0 for m in kept)
    read = sum(m.card is not None for m in kept)
    return read < 3 or read < 0.6 * faces or _backs_below(kept) > 0


def _unturn(quad: np.ndarray, turn: int, w: int, h: int) -> np.ndarray:
    """Points of a ``w`` x ``h`` frame turned ``turn`` degrees clockwise, back in the frame."""
    x, y = quad[:, 0], quad[:, 1]
    if turn == 90:  # turned (x', y') = (h - 1 - y, x)
        out = np.stack([y, h - 1 - x], 1)
    elif turn == 180:
        out = np.stack([w - 1 - x, h - 1 - y], 1)
    else:  # 270: (x', y') = (y, w - 1 - x)
        out = np.stack([w - 1 - y, x], 1)
    return out.astype(np.float32)


def _turn_point(x: float, y: float, turn: int, w: int, h: int) -> tuple[float, float]:
    """A point of a ``w`` x ``h`` frame in the frame turned ``turn`` degrees clockwise."""
    if turn == 90:
        return h - 1 - y, x
    if turn == 180:
        return w - 1 - x, h - 1 - y
    if turn == 270:
        return y, w - 1 - x
    return x, y


def _turn_calibration(calibration: dict | None, turn: int, w: int, h: int) -> dict | None:
    """A calibration's slot centres as seen in the frame turned ``turn`` degrees clockwise."""
    if not calibration or not calibration.get("slots"):
        return calibration
    slots = calibrated_slots(calibration, w, h)
    turned = dict(calibration)
    turned["slots"] = {k: list(_turn_point(x, y, turn, w, h)) for k, (x, y) in slots.items()}
    turned["image_size"] = [h, w] if turn in (90, 270) else [w, h]
    return turned


# Face-down counting (see docs/face-down-counts.md). Lengths in card heights.
_ROW_TOL = 0.03  # a column's first mark this near the row line starts on it
_FACE_SIG = 0.015  # how far a first face-up card's mark lies from its place
_BACK_SIG = 0.025  # a face-down strip's mark (thin strips are found less exactly)
_GAP_SIG = 0.025  # a column's first mark against the row line (which is fitted)
_MISS_CAP = 4.5  # the most one mark off its place costs (a stray mark, in log-likelihood)
_GAP_BIAS = 0.2  # a gap to the row line counts a missed strip only from 0.7 pitch up
# strip pitch over card height tried, and its prior (log-normal around a tenth of a card)
_PITCHES = np.arange(0.04, 0.34, 0.0005)
_PITCH_PRIOR = -0.5 * (np.log(_PITCHES / 0.1) / 0.35) ** 2
FRESH_DEAL = (0, 1, 2, 3, 4, 5, 6)
_FRESH_MARGIN = 1.0  # log-likelihood within which the fresh-deal counts break a tie
_FRESH_SHAPE_MARGIN = 2.0  # the same where the face-up cards lie as on a fresh deal (_looks_fresh)


@dataclass(frozen=True)
class _ColumnMarks:
    """What the marks of one column say of its face-down cards, in card heights down the
    column from its first mark: ``gap`` from the row line to that mark (a strip missed above
    it), ``backs`` the backs found below it and above the first face, ``face`` the first
    face-up card (None where none was found), ``first_back`` whether the first mark is a back."""

    gap: float
    backs: tuple[float, ...]
    face: float | None
    first_back: bool


def _down_counts(kept: list[_Mark], frame_bgr: np.ndarray | None = None) -> tuple[tuple[int, ...], bool]:
    """Face-down cards in each column and whether a face-down pile was seen in the stock's
    place.

    A column's face-down cards lie as strips from the row where every column starts
    (:func:`_row_line`) down to its first face-up card, one strip pitch apart. Thin strips
    are often found only in part, so the strips are not counted one by one: one pitch for
    the whole frame (:func:`_strip_pitch`) is fitted to every column's marks at once, and a
    column's count is the span from the row to its first face-up card over that pitch (at
    least the backs found). Where the fresh-deal counts 0..6 fit the marks nearly as well as
    the best fit, they are taken (a tie-break, never over the evidence).

    With the frame (as read, marks in its pixels), strips missed above a column's first
    mark are counted only where the picture shows something there: a column whose space up
    to the row line looks like the table beside it (:func:`_bare_above`) starts lower than
    the others, as a person's hand-laid columns do, and has no face-down cards up there; a
    lone back mark just above a column's first face whose strip shows the table is dropped
    (the table's edge and the card's top margin, taken for a back)."""
    columns = _column_marks(kept, frame_bgr)
    stock = any(m.kind == 1 and m.slot == "stock" for m in kept)
    if not columns:
        return (0,) * 7, stock
    scores = _strip_pitch(columns)
    pitch = float(_PITCHES[int(np.argmax(scores))])
    down = _counts_at(columns, pitch)
    if down != FRESH_DEAL and len(columns) == 7:
        margin = _FRESH_SHAPE_MARGIN if _looks_fresh(kept) else _FRESH_MARGIN
        if float(_fresh_scores(columns).max()) >= float(scores.max()) - margin:
            down = FRESH_DEAL
    # column c is dealt c-1 face-down cards and never gets more
    return tuple(min(d, c) for c, d in enumerate(down)), stock


def _looks_fresh(kept: list[_Mark]) -> bool:
    """Whether the face-up cards lie as on a fresh deal: one in each of the seven columns and
    none elsewhere (no waste, no foundation)."""
    faces: dict[str, int] = {}
    for m in kept:
        if m.kind == 0:
            faces[m.slot] = faces.get(m.slot, 0) + 1
    return len(faces) == 7 and all(faces.get(f"column {c}") == 1 for c in range(1, 8))


def _column_marks(kept: list[_Mark], frame_bgr: np.ndarray | None = None) -> dict[int, _ColumnMarks]:
    """Each column's marks as offsets down the column (see :class:`_ColumnMarks`); marks
    above the row line (stray marks) are left out. With the frame, a gap to the row line
    whose space looks like the table beside it is no gap (:func:`_bare_above`)."""
    cols: dict[int, list[_Mark]] = {}
    for m in kept:
        if m.slot.startswith("column "):
            cols.setdefault(int(m.slot.split()[1]), []).append(m)
    if not cols:
        return {}
    for ms in cols.values():
        ms.sort(key=lambda m: m.y)
    height = statistics.median(m.h for m in kept)
    tol = _ROW_TOL * height
    line = _row_line([[(m.x, m.y) for m in ms[:2]] for ms in cols.values()], tol)
    out = {}
    for c, ms in cols.items():
        ms = [m for m in ms if m.y >= line(m.x) - tol] or ms
        if frame_bgr is not None and len(ms) > 1 and ms[0].kind == 1 and ms[1].kind == 0:
            # a lone back just above the first face whose strip shows the table: the table's
            # edge and the card's top margin, taken for a back
            if _bare_above(frame_bgr, ms[1:], ms[1].y - ms[0].y, kept, cols, faces=False):
                ms = ms[1:]
        # down the column: along the cards' own axis, in the column's card heights
        scale = max(0.5, math.cos(statistics.median(m.angle for m in ms))) * statistics.median(m.h for m in ms)
        first = ms[0]
        gap = (first.y - line(first.x)) / scale
        faces = [(m.y - first.y) / scale for m in ms if m.kind == 0]
        face = faces[0] if faces else None
        backs = tuple(
            o for m in ms if m.kind == 1 and (o := (m.y - first.y) / scale) > 0 and (face is None or o < face)
        )
        if gap > tol / scale and frame_bgr is not None and _bare_above(frame_bgr, ms, gap * scale, kept, cols):
            gap = 0.0
        out[c] = _ColumnMarks(gap if gap > tol / scale else 0.0, backs, face, first.kind == 1)
    return out


_BARE_SHARE = 0.95  # of a space's pixels the table's colours or another slot's face: no strips there
_BARE_REACH = 10.0  # the least Lab distance (8-bit) from the table's colour still counted as table
_BARE_REACH_MAX = 28.0  # ... and the most, however many colours the table shows
# another slot's face, in its card's axes: a real card reaches lower than its mark says
_FACE_GROW = (0.0, 1.0, 0.0, 1.12)
# of a card's height above its mark not looked at (the mark sits a little inside the card)
_BARE_SKIP = 0.03
_BARE_DARK = 70.0  # a table darker than this (Lab L, 8-bit) cannot be told from a dark back by colour
_BARE_TABLE_PX = 3000  # the table's pixels nearest a column that tell the table's colour there


def _bare_above(
    frame_bgr: np.ndarray, own: list[_Mark], rise: float, kept: list[_Mark], cols: dict, faces: bool = True
) -> bool:
    """Whether the space from a column's first mark (``own``: the column's marks, top
    first) up ``rise`` px (to the row line, or to a lone back mark above it) holds no
    face-down cards: at least ``_BARE_SHARE`` of it (its middle 70% across) is either a
    face-up card not of the column (a row of cards above: this column starts lower; only
    with ``faces``) or the table, a pixel within the spread of the colours of the table at
    the same height (the ``_BARE_TABLE_PX`` pixels nearest the column where no card or
    column lies). False where it cannot tell: too little of the space or of the table seen,
    or a table darker than ``_BARE_DARK`` (a plain dark back on a dark mat would pass for
    it); the marks alone decide then, as without the frame. A back of nearly the table's
    own colour on a lighter table can still pass for it: its strips are then not counted,
    and the game's own count (the tracker) is what holds."""
    share = _bare_share(frame_bgr, own, rise, kept, cols, faces)
    return share is not None and share >= _BARE_SHARE


def _bare_share(
    frame_bgr: np.ndarray, own: list[_Mark], rise: float, kept: list[_Mark], cols: dict, with_faces: bool = True
) -> float | None:
    """The share of the space :func:`_bare_above` looks at that is a face-up card not of
    the column or the table's colour, or None where too little is seen."""
    first, own_ids = own[0], {id(m) for m in own}
    up = rise / first.h
    band = _cards_corners([first], (0.15, 0.85, -up, -_BARE_SKIP))[0]
    h, w = frame_bgr.shape[:2]
    y0, y1 = int(max(0, np.floor(band[:, 1].min()))), int(min(h, np.ceil(band[:, 1].max()) + 1))
    if y1 - y0 < 3:
        return None
    shift = np.array([0, y0], np.float32)
    size = (y1 - y0, w)
    band_mask = np.zeros(size, np.uint8)
    cv2.fillPoly(band_mask, [np.round(band - shift).astype(np.int32)], 1)
    faces = np.zeros(size, np.uint8)  # face-up cards not of the column (another slot's, a stray)
    cards = np.zeros(size, np.uint8)  # every card and every column's width: not the table
    others = [m for m in kept if m is not first]
    # a little more than the mark's card: its corner mark sits a little inside it
    card_box = np.round(_cards_corners(others, (-0.06, 1.06, -0.06, 1.12)) - shift)
    for i in _in_rows(card_box, size[0]):
        cv2.fillPoly(cards, [card_box[i].astype(np.int32)], 1)
    if with_faces:
        grown = [m for m in others if m.kind == 0 and id(m) not in own_ids]
        face_box = np.round(_cards_corners(grown, _FACE_GROW) - shift)
        for i in _in_rows(face_box, size[0]):
            cv2.fillPoly(faces, [face_box[i].astype(np.int32)], 1)
    for ms in cols.values():  # a column's width, all the way: its strips lie there, found or not
        left = float(_cards_corners(ms, (0, 0, 0, 1))[:, :, 0].min())
        right = float(_cards_corners(ms, (1, 1, 0, 1))[:, :, 0].max())
        cards[:, max(0, int(left)) : max(0, int(math.ceil(right)) + 1)] = 1
    inside = band_mask == 1
    if inside.sum() < 40:
        return None
    face_share = float(np.mean(faces[inside]))
    space_at = inside & (faces == 0)
    table_at = cards == 0
    free = table_at.sum(0)  # the table's pixels in each pixel column of the band
    if space_at.sum() < 40 or int(free.sum()) < 200:
        return face_share if face_share >= _BARE_SHARE else None
    ys, xs = _nearest_pixels(table_at, free, first.x + 0.5 * first.w, _BARE_TABLE_PX)
    band_bgr = frame_bgr[y0:y1]
    table = _lab(band_bgr[ys, xs])
    centre = np.median(table, 0)
    if centre[0] < _BARE_DARK:  # a dark mat: a plain dark back would pass for it
        return face_share if face_share >= _BARE_SHARE else None
    spread = 2.0 * float(np.percentile(np.linalg.norm(table - centre, axis=1), 80))
    reach = min(max(_BARE_REACH, spread), _BARE_REACH_MAX)  # a table of many colours tells nothing
    table_share = float(np.mean(np.linalg.norm(_lab(band_bgr[space_at]) - centre, axis=1) <= reach))
    return face_share + (1.0 - face_share) * table_share


def _cards_corners(marks: list[_Mark], spans: tuple[float, float, float, float]) -> np.ndarray:
    """The corners of each mark's card frame (its own axes, in card widths and heights from
    its corner) for ``spans`` = (a0, a1, b0, b1): the rectangle a0..a1 across, b0..b1 down;
    N x 4 x 2 float32, every mark at once."""
    a0, a1, b0, b1 = spans
    if not marks:
        return np.zeros((0, 4, 2), np.float32)
    # x, y, ux, uy, vx, vy of each mark, the axes as the mark gives them
    g = np.array([(m.x, m.y, *u, *v) for m in marks for u, v in (m.axes(),)], np.float64)
    a = np.array([a0, a1, a1, a0], np.float64)
    b = np.array([b0, b0, b1, b1], np.float64)
    xs = g[:, 0:1] + a * g[:, 2:3] + b * g[:, 4:5]
    ys = g[:, 1:2] + a * g[:, 3:4] + b * g[:, 5:6]
    return np.stack([xs, ys], 2).astype(np.float32)


def _in_rows(boxes: np.ndarray, rows: int) -> np.ndarray:
    """Which of ``boxes`` (N x 4 x 2, rounded, in a band's pixels) reach the band's
    ``rows`` rows: the others would fill nothing there."""
    return np.flatnonzero((boxes[:, :, 1].max(1) >= 0) & (boxes[:, :, 1].min(1) < rows))


def _nearest_pixels(mask: np.ndarray, per_x: np.ndarray, x: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the ``n`` pixels set in ``mask`` nearest the pixel column ``x``
    (ties in row-major order, as :func:`_nearest` of all of them); ``per_x``: the set
    pixels in each pixel column. Only the pixel columns up to the nearest that hold ``n``
    are looked at."""
    w = mask.shape[1]
    dist = np.abs(np.arange(w) - x)
    by_dist = np.argsort(dist, kind="stable")
    enough = int(np.searchsorted(np.cumsum(per_x[by_dist]), n))
    within = np.flatnonzero(dist <= dist[by_dist[min(enough, w - 1)]])  # one run of columns
    xa, xb = int(within[0]), int(within[-1]) + 1
    ys, xs = np.nonzero(mask[:, xa:xb])
    xs = xs + xa
    near = _nearest(np.abs(xs - x), n)
    return ys[near], xs[near]


def _lab(bgr: np.ndarray) -> np.ndarray:
    """8-bit BGR pixels (N x 3) as Lab, float32 N x 3 (each pixel as a whole picture's)."""
    if not len(bgr):
        return np.zeros((0, 3), np.float32)
    return (
        cv2.cvtColor(np.ascontiguousarray(bgr).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    )


def _nearest(d: np.ndarray, n: int) -> np.ndarray:
    """The indices of the ``n`` smallest of ``d``, ties taken in index order: the same set
    as ``np.argsort(d, kind="stable")[:n]`` without sorting all of ``d``."""
    if len(d) <= n:
        return np.arange(len(d))
    cut = np.partition(d, n - 1)[n - 1]
    below = np.flatnonzero(d < cut)
    return np.concatenate([below, np.flatnonzero(d == cut)[: n - len(below)]])


def _row_line(firsts: list[list[tuple[float, float]]], tol: float):
    """The line the columns start on, as ``y(x)``: of the lines through the first two marks
    of the columns (``firsts``, a list per column), the one that one mark of the most
    columns lies on (within ``tol``) with the fewest columns starting above it (a stray mark,
    one each), the closest fit among equals; refitted through the marks on it."""
    pts = np.asarray([p for ps in firsts for p in ps], np.float64)
    col = np.asarray([i for i, ps in enumerate(firsts) for _ in ps])
    first = np.asarray([j == 0 for ps in firsts for j in range(len(ps))])
    i, j = np.triu_indices(len(pts), 1)
    keep = col[i] != col[j]
    i, j = i[keep], j[keep]
    dx = pts[j, 0] - pts[i, 0]
    slope = np.where(np.abs(dx) > 1e-6, (pts[j, 1] - pts[i, 1]) / np.where(np.abs(dx) > 1e-6, dx, 1.0), 0.0)
    ok = np.abs(slope) <= 0.2
    b = np.concatenate([np.zeros(len(pts)), slope[ok]])
    a = np.concatenate([pts[:, 1], pts[i[ok], 1] - slope[ok] * pts[i[ok], 0]])
    d = pts[None, :, 1] - (a[:, None] + b[:, None] * pts[None, :, 0])  # lines x marks
    n_cols = len(firsts)
    near = np.full((len(a), n_cols), np.inf)
    above = np.zeros((len(a), n_cols), bool)
    for k in range(len(pts)):
        dk = np.abs(d[:, k])
        near[:, col[k]] = np.minimum(near[:, col[k]], np.where(dk <= tol, dk, np.inf))
        if first[k]:
            above[:, col[k]] = d[:, k] < -tol
    on = np.isfinite(near)
    cost = above.sum(1) - on.sum(1) + np.where(on, near, 0.0).sum(1) / (tol * (n_cols + 1))
    best = int(np.argmin(cost))
    xs, ys = [], []
    for c in range(n_cols):
        if on[best, c]:
            k = [k for k in range(len(pts)) if col[k] == c and abs(d[best, k]) <= tol]
            k = min(k, key=lambda k: abs(d[best, k]))
            xs.append(pts[k, 0])
            ys.append(pts[k, 1])
    a0, b0 = float(a[best]), float(b[best])
    if len(xs) >= 3 and np.ptp(xs) > 0:
        b0, a0 = (float(v) for v in np.polyfit(xs, ys, 1))
    return lambda x: a0 + b0 * x


def _miss(obs, target, sig: float) -> np.ndarray:
    """What a mark at ``obs`` costs where it belongs at ``target`` (half its squared
    distance in ``sig``, capped: a stray mark costs ``_MISS_CAP`` whatever its distance)."""
    return np.minimum(0.5 * ((obs - target) / sig) ** 2, _MISS_CAP)


def _strip_pitch(columns: dict[int, _ColumnMarks]) -> np.ndarray:
    """How well each pitch of ``_PITCHES`` fits the marks (a log-likelihood): every back
    and first face on a whole number of pitches below its column's first mark, every gap to
    the row line too; each mark also gains the log of the pitch (a small pitch fits any
    mark, so it must fit decisively better: the fewest strips that explain the marks), and
    the prior on the pitch. The free counts' fit (:func:`_free_fit`) included."""
    return _pitch_base(columns) + _free_fit(columns)


def _pitch_base(columns: dict[int, _ColumnMarks]) -> np.ndarray:
    """The part of the fit the counts do not change: the backs' places, the Occam term, the prior."""
    score = _PITCH_PRIOR.copy()
    n = 0
    for cm in columns.values():
        for o in cm.backs:
            score -= _miss(o, np.round(o / _PITCHES) * _PITCHES, _BACK_SIG)
        n += len(cm.backs) + (cm.face is not None and cm.face > 0) + (cm.gap > 0)
    return score + n * np.log(_PITCHES)


def _free_fit(columns: dict[int, _ColumnMarks]) -> np.ndarray:
    """The fit of each column's gap and first face at the counts each pitch gives them."""
    score = np.zeros(len(_PITCHES))
    for cm in columns.values():
        k0 = np.maximum(0, np.round(cm.gap / _PITCHES - _GAP_BIAS))
        score -= _miss(cm.gap, k0 * _PITCHES, _GAP_SIG)
        if cm.face is not None:
            score -= _miss(cm.face, np.round(cm.face / _PITCHES) * _PITCHES, _FACE_SIG)
    return score


def _fresh_scores(columns: dict[int, _ColumnMarks]) -> np.ndarray:
    """The fit of the gaps and first faces with column k holding k-1 face-down cards (the
    best split of them between the gap and the span below the first mark), per pitch."""
    score = np.zeros(len(_PITCHES))
    for c, cm in columns.items():
        want = c - 1
        last = np.round(np.asarray(cm.backs)[:, None] / _PITCHES).max(0) if cm.backs else np.full(len(_PITCHES), -1.0)
        best = np.full(len(_PITCHES), -np.inf)
        for k in range(want + 1):
            s = -_miss(cm.gap, k * _PITCHES, _GAP_SIG)
            if cm.face is not None:
                s = s - _miss(cm.face, (want - k) * _PITCHES, _FACE_SIG)
            else:
                s = s - np.where(last + 1 > want - k, 2 * _MISS_CAP, 0.0)
            best = np.maximum(best, s)
        score += best
    return score + _pitch_base(columns)


def _counts_at(columns: dict[int, _ColumnMarks], pitch: float) -> tuple[int, ...]:
    """Each column's count at ``pitch``: strips missed above its first mark, plus its span
    to the first face-up card (one below the last back where no face was found), and never
    fewer than the backs found."""
    down = [0] * 7
    for c, cm in columns.items():
        missed = max(0, int(round(cm.gap / pitch - _GAP_BIAS)))
        places = {int(round(o / pitch)) for o in cm.backs}
        if cm.face is not None:
            span = int(round(cm.face / pitch))
        else:
            span = max(places) + 1 if places else int(cm.first_back)
        down[c - 1] = missed + max(span, len(places) + int(cm.first_back))
    return tuple(down)


def _suppress(marks: list[_Mark]) -> list[_Mark]:
    """Drop a mark that sits on a stronger one (the same corner found twice)."""
    marks = sorted(marks, key=lambda m: -m.score)
    out: list[_Mark] = []
    for m in marks:
        if any(abs(m.x - o.x) < 0.08 * o.w and abs(m.y - o.y) < 0.035 * o.h for o in out):
            continue
        out.append(m)
    return out


def _uncovered(marks: list[_Mark]) -> set[int]:
    """Marks whose whole card is visible: no other mark's corner lies on the card's lower part
    or right part (the next card of a fanned column or waste)."""
    out = set()
    for m in marks:
        covered = False
        for o in marks:
            if o is m:
                continue
            dx, dy = o.x - m.x, o.y - m.y
            if -0.5 * m.w < dx < 0.95 * m.w and 0.02 * m.h < dy < 0.95 * m.h:
                covered = True
                break
            if 0.05 * m.w < dx < 0.95 * m.w and abs(dy) < 0.3 * m.h:
                covered = True
                break
        if not covered:
            out.add(id(m))
    return out


def _dedupe_cards(marks: list[_Mark]) -> None:
    """A card can lie on the table once: of two reads of one card the weaker becomes unreadable."""
    best: dict[Card, _Mark] = {}
    for m in marks:
        if m.card is None:
            continue
        o = best.get(m.card)
        if o is None:
            best[m.card] = m
        else:
            weak = _weaker(m, o)
            weak.card = None
            best[m.card] = o if weak is m else m


def _weaker(m: _Mark, o: _Mark) -> _Mark:
    """Of two reads of one card, the one that gives way: a strip lying on the very corner of
    the whole card it reads as (that card's own corner found a few pixels higher: a strip
    of a card under it would show its own card) gives way to it; otherwise the less sure.
    Without that rule a whole card read at its own corner alone (the far-corner skip) lost
    to its ghost by a hair of confidence, and the column's top was left unread (game2)."""
    for strip, whole in ((m, o), (o, m)):
        if strip.strip and not whole.strip:
            (ux, uy), (vx, vy) = whole.axes()
            dx, dy = strip.x - whole.x, strip.y - whole.y
            across = (dx * ux + dy * uy) / (whole.w * whole.w)  # in card widths
            down = (dx * vx + dy * vy) / (whole.h * whole.h)  # in card heights
            if abs(across) < 0.1 and -0.15 < down <= 0.0:
                return strip
    return m if m.conf < o.conf else o


def cluster_positions(xs: list[float], gap: float) -> list[list[int]]:
    """Indices of ``xs`` grouped into runs whose neighbours lie at most ``gap`` apart, left to right."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    groups: list[list[int]] = []
    for i in order:
        if groups and xs[i] - xs[groups[-1][-1]] <= gap:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def calibrated_slots(
    calibration: dict | None, width: int | None = None, height: int | None = None
) -> dict[str, tuple[float, float]]:
    """The calibration's slot centres (``slots``) for a picture of ``width`` x ``height``:
    scaled from the picture size the calibration was made on (``image_size``) when the
    picture is another size -- the same camera at another resolution (``--width``,
    ``--height``, or a camera that gives another size than asked) sees the same table --,
    and as they are otherwise (no size given or recorded). Empty without slots."""
    slots = (calibration or {}).get("slots") or {}
    made_on = (calibration or {}).get("image_size")
    sx = sy = 1.0
    if made_on and width and height and (width, height) != tuple(made_on):
        sx, sy = width / float(made_on[0]), height / float(made_on[1])
    return {name: (float(xy[0]) * sx, float(xy[1]) * sy) for name, xy in slots.items()}


def assign_slots(marks: list[_Mark], frame_w: int, calibration: dict | None = None, frame_h: int | None = None) -> None:
    """Set each mark's slot from its position (standard layout) or from a calibration
    (its slots scaled to a ``frame_w`` x ``frame_h`` picture: ``calibrated_slots``)."""
    if not marks:
        return
    w = float(np.median([m.w for m in marks]))
    h = float(np.median([m.h for m in marks]))
    if calibration and calibration.get("slots"):
        _assign_calibrated(marks, calibrated_slots(calibration, frame_w, frame_h), w)
        return
    top, low = _split_rows(marks, w, h)
    # x positions of the table grid (columns share x with the top-row slots)
    cols = cluster_positions([m.x for m in low], 0.5 * w)
    col_x = [float(np.median([low[i].x for i in g])) for g in cols]
    tops = cluster_positions([m.x for m in top], 0.6 * w)
    top_x = [min(top[i].x for i in g) for g in tops]
    top_back = [any(top[i].kind == 1 for i in g) for g in tops]
    # face-up cards spread sideways: the waste's fan, never on the stock's place
    top_fan = [
        sum(top[i].kind == 0 for i in g) >= 2 and max(top[i].x for i in g) - min(top[i].x for i in g) > 0.1 * w
        for g in tops
    ]
    xs = sorted(col_x + top_x)
    merged: list[float] = []
    for x in xs:
        if merged and x - merged[-1] < 0.5 * w:
            continue
        merged.append(x)
    diffs = np.diff(merged)
    if len(diffs):
        p0 = float(diffs.min())
        pitch = float(np.median([d / max(1, round(d / p0)) for d in diffs]))
        pitch = max(pitch, 1.02 * w)
    else:
        pitch = 1.25 * w
    pitch = _fit_pitch(col_x, pitch, w)
    x_min = merged[0]
    ks_col = [int(round((x - x_min) / pitch)) for x in col_x]
    ks_top = [int(round((x - x_min) / pitch)) for x in top_x]
    shift = _seven_columns(ks_col, [len(g) for g in cols])
    ks_col = [k - shift for k in ks_col]
    ks_top = [k - shift for k in ks_top]
    x_min += shift * pitch
    span = max(ks_col + ks_top + [0])
    best = None
    for o in range(0, max(0, 6 - span) + 1):
        cost = 0.0
        for k, back, fan in zip(ks_top, top_back, top_fan):
            if back and k + o != 0:
                cost += 100
            if fan and k + o == 0:
                cost += 50
            if k + o == 2:
                cost += 50
        centre = x_min - o * pitch + 3 * pitch + w / 2
        cost += abs(centre - frame_w / 2) / max(pitch, 1)
        if best is None or cost < best[0]:
            best = (cost, o)
    o = best[1] if best else 0
    for g, k in zip(cols, ks_col):
        for i in g:
            low[i].slot = f"column {min(7, max(1, k + o + 1))}"
    for g, k in zip(tops, ks_top):
        kk = k + o
        for i in g:
            top[i].slot = _top_slot(kk, top[i].kind)


def _fit_pitch(col_x: list[float], pitch: float, w: float) -> float:
    """The columns' pitch, ``pitch`` unless it puts the columns at ``col_x`` on more than seven
    places (or two on one): a camera looking at the table aslant makes the far columns
    narrower, and the steps between columns then round to the wrong count of pitches. Then
    the pitch (a step between two columns over a whole number of places) that puts them on
    seven places at most, the fit of a straight grid closest, where one fits within a third
    of a pitch; ``pitch`` where none does (a stray mark beside the table, left to
    :func:`_seven_columns`)."""
    xs = sorted(col_x)
    if len(xs) < 3:
        return pitch

    def misfit(p: float) -> float:
        ks = [round((x - xs[0]) / p) for x in xs]
        if ks[-1] > 6 or len(set(ks)) < len(ks):
            return math.inf
        slope, icpt = np.polyfit(ks, xs, 1)
        if slope <= 0:
            return math.inf
        return float(max(abs(x - (icpt + slope * k)) for x, k in zip(xs, ks)) / slope)

    if misfit(pitch) < math.inf:
        return pitch
    cands = [(xs[j] - xs[i]) / n for i in range(len(xs)) for j in range(i + 1, len(xs)) for n in range(1, 7)]
    fits = [(misfit(p), p) for p in cands if 1.02 * w <= p <= 2.5 * w]
    best = min(fits, default=(math.inf, pitch))
    return best[1] if best[0] < 1 / 3 else pitch


def _seven_columns(ks: list[int], sizes: list[int]) -> int:
    """Where the seven columns start among grid places ``ks`` (0 the leftmost place) that
    span more than seven: the run of seven places holding the most marks (``sizes``: the
    marks at each place); a stray mark beside the table (a shadow, a card's edge) is left
    outside the run instead of pushing every column one place along. 0 where they fit."""
    if not ks or max(ks) - min(ks) <= 6:
        return 0
    held = {s: sum(n for k, n in zip(ks, sizes) if s <= k <= s + 6) for s in range(min(ks), max(ks) - 5)}
    return max(held, key=lambda s: (held[s], -s))


def _fanned(m: _Mark, marks: list[_Mark], w: float, h: float) -> bool:
    """Whether another mark lies a strip or a fanned card's step below ``m`` in its column
    (the next card of a column; the top row's cards have nothing so close below them)."""
    return any(o is not m and abs(o.x - m.x) < 0.5 * w and 0.04 * h < o.y - m.y < 0.6 * h for o in marks)


def _split_rows(marks: list[_Mark], w: float, h: float) -> tuple[list[_Mark], list[_Mark]]:
    """The marks of the top row (stock, waste, foundations) and those of the columns.

    The top row is the marks within half a card height of the highest one, unless those
    marks are the heads of fanned columns: where as many of them have the next card of a
    column just below them as half of those that have none, and the marks below them follow
    on without the gap that parts the top row from the columns (half a card height), the
    top row is out of the picture or not found (a stock the locator misses, as on a fresh
    deal, whose waste and foundations are empty) and every mark is a column's."""
    top_y = min(m.y for m in marks)
    top = [m for m in marks if m.y < top_y + 0.5 * h]
    low = [m for m in marks if m.y >= top_y + 0.5 * h]
    fanned = sum(_fanned(m, marks, w, h) for m in top)
    gap = min((m.y for m in low), default=0.0) - max(m.y for m in top)
    if fanned and 2 * fanned >= len(top) - fanned and gap < 0.5 * h:
        return [], list(marks)
    return top, low


def _top_slot(k: int, kind: int) -> str:
    if k <= 0:
        return "stock" if kind == 1 else "waste"
    if k <= 2:
        return "waste"
    return f"foundation {min(4, k - 2)}"


def _assign_calibrated(marks: list[_Mark], cal_slots: dict[str, tuple[float, float]], w: float) -> None:
    """Set each mark's slot to the nearest of the calibration's slots ``cal_slots`` in its row
    (top row or columns); ``w`` is the median card width."""
    slots = {k: np.asarray(v, np.float64) for k, v in cal_slots.items()}
    top_names = [
        n for n in ("stock", "waste", "foundation 1", "foundation 2", "foundation 3", "foundation 4") if n in slots
    ]
    col_names = [f"column {i}" for i in range(1, 8) if f"column {i}" in slots]
    top_y = np.mean([slots[n][1] for n in top_names]) if top_names else None
    col_y = np.mean([slots[n][1] for n in col_names]) if col_names else None
    for m in marks:
        cx, cy = m.x + m.w / 2, m.y + m.h / 2
        in_top = top_y is not None and (col_y is None or abs(cy - top_y) < abs(cy - col_y) or m.y < top_y)
        names = top_names if in_top and top_names else col_names
        if not names:
            continue
        if in_top:
            # a fanned waste spreads right of its slot: compare with the left edge
            d = [abs(m.x + w / 2 - slots[n][0]) for n in names]
        else:
            d = [abs(cx - slots[n][0]) for n in names]
        m.slot = names[int(np.argmin(d))]
        if m.slot == "stock" and m.kind == 0:
            m.slot = "waste"


def _cover(marks: list[_Mark]) -> None:
    """Where a card is overlapped by the next one of its pile (fanned columns and waste)."""
    by_slot: dict[str, list[_Mark]] = {}
    for m in marks:
        by_slot.setdefault(m.slot, []).append(m)
    for slot, ms in by_slot.items():
        if slot.startswith("column"):
            ms.sort(key=lambda m: m.y)
            for a, b in zip(ms, ms[1:]):
                a.bottom = b.y
        elif slot == "waste":
            ms.sort(key=lambda m: m.x)
            for a, b in zip(ms, ms[1:]):
                a.right = b.x


def _index(card: Card | None) -> int:
    """A card's index, -1 for none."""
    return -1 if card is None else card.index


def _quad(m: _Mark) -> np.ndarray:
    """The visible part of a mark's card (tl, tr, br, bl), turned with the card."""
    if m.quad is not None:
        return m.quad
    wide = (m.right - m.x) if m.right is not None else m.w
    tall = (m.bottom - m.y) if m.bottom is not None else m.h
    c, s = math.cos(m.angle), math.sin(m.angle)
    u, v = np.array([c, s]) * wide, np.array([-s, c]) * tall
    o = np.array([m.x, m.y])
    return np.array([o, o + u, o + u + v, o + v], np.float32)


def build_snapshot(marks: list[_Mark]) -> Snapshot:
    """The 12 slots (and each column's face-up run) from slotted marks."""
    by_slot: dict[str, list[_Mark]] = {}
    for m in marks:
        by_slot.setdefault(m.slot, []).append(m)
    slots = []
    waste = [m for m in by_slot.get("waste", []) if m.kind == 0]
    slots.append(_value(max(waste, key=lambda m: m.x)) if waste else EMPTY)
    for f in range(1, 5):
        ms = by_slot.get(f"foundation {f}", [])
        slots.append(_value(max(ms, key=lambda m: m.score)) if ms else EMPTY)
    runs = []
    for c in range(1, 8):
        ms = sorted(by_slot.get(f"column {c}", []), key=lambda m: m.y)
        if not ms:
            slots.append(EMPTY)
            runs.append(None)
            continue
        slots.append(_value(ms[-1]))
        run = []
        for m in ms:
            if m.kind == 1:
                run = []
            else:
                run.append(m)
        runs.append(tuple(m.card for m in run) if run and all(m.card is not None for m in run) else None)
    return Snapshot(tuple(slots), tuple(runs))


def _value(m: _Mark):
    if m.kind == 0 and m.card is not None:
        return m.card
    return UNKNOWN


def _cut_patches(frame_bgr: np.ndarray, cuts: list[tuple], geom: F.PatchGeom) -> np.ndarray:
    """The patches of ``geom`` at the card corners ``cuts`` ((corner, width vector, height
    vector) each), N x read_h x read_w x 3 BGR."""
    if not cuts:
        return np.zeros((0, geom.read_h, geom.read_w, 3), np.uint8)
    return np.stack([F.corner_patch(frame_bgr, c, u, v, geom) for c, u, v in cuts])


# a card turned this far (degrees) or more on the table is not read by the readers' agreed
# rank (see CardDetector._agreed_ranks)
_AGREE_MAX_TURN = 10.0
# with a rank the readers agree on, the top-right suit weighed into the corners' suit (which
# knows the colour) at this weight, as the shipped pip rule weighs the pips' suit
_AGREED_SUIT_WEIGHT = 0.75
_TWIN_SURE = 0.8  # the corners' twin suit that keeps weighing in where a top right's suit is read
# the probability given to a whole number card's rank where its pips number as many
_COUNTED_RANK = 0.99


def _twin_suit(a: int, b: int) -> bool:
    """Whether suits ``a`` and ``b`` (C D H S) differ and share a colour (spades and clubs,
    hearts and diamonds)."""
    return a != b and (a in RED_SUITS) == (b in RED_SUITS)


def _same_colour(card_suit: np.ndarray, suit_p: np.ndarray) -> bool:
    """Whether the card's own suit probabilities (C D H S) give the colour of ``suit_p``'s
    likeliest suit at least even odds: the corners tell red from black far more surely than
    a small pip's shape does (a 2 of spades 50 px wide, its pips named hearts)."""
    red = float(sum(card_suit[k] for k in RED_SUITS)) / float(card_suit.sum())
    return (red if int(suit_p.argmax()) in RED_SUITS else 1.0 - red) >= 0.5


def _twin_sure(card_suit: np.ndarray, suit_p: np.ndarray) -> bool:
    """Whether the card's own suit probabilities (C D H S) name the other suit of the colour
    of ``suit_p``'s likeliest suit at ``_TWIN_SURE`` or more (of all four)."""
    top = int(suit_p.argmax())
    twin = next(s for s in range(4) if _twin_suit(top, s))
    return float(card_suit[twin]) / float(card_suit.sum()) >= _TWIN_SURE


def _sure_rank(rank: int, p: float) -> np.ndarray:
    """13 rank probabilities: ``p`` on ``rank`` (1-13), the rest spread evenly."""
    out = np.full(13, (1.0 - p) / 12)
    out[rank - 1] = p
    return out


def _weighed(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    """The probabilities ``a`` ** (1 - ``w``) x ``b`` ** ``w``, normalised: a second opinion
    ``b`` weighed into a read ``a``."""
    p = np.exp((1 - w) * np.log(a + 1e-9) + w * np.log(b + 1e-9))
    return p / float(p.sum())


def _geo_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-normalised geometric mean of two N x K probability arrays."""
    p = np.sqrt(a * b) + 1e-12
    return p / p.sum(1, keepdims=True)


def model_card_probs(rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """N x 52 card probabilities (index = Card.index) from the reader's rank and suit."""
    return (suit[:, :, None] * rank[:, None, :]).reshape(len(rank), 52)


# ---------------------------------------------------------------------- learnt decks
class DeckError(ValueError):
    """A learnt deck that cannot be used; the message names its folder or file and what is wrong."""


@dataclass(frozen=True)
class LearntDeck:
    """A deck taught with ``learn-deck``: reference embeddings, its own classifier head and
    its own settings (``deck.json``: read thresholds, ...)."""

    refs: np.ndarray  # 52 x D reference embeddings, rows in Card.index order
    head: tuple[np.ndarray, np.ndarray]  # the per-deck classifier (W: D x 52, b: 52)
    meta: dict  # deck.json: the deck's own read thresholds, ...
    reader: DeckReader | None = None  # reader.npz (learn-deck since issue 40): its own pixel reader


DECK_FILES = ("refs.npy", "head.npz", "deck.json")


def load_learnt_deck(name: str, dim: int | None = None) -> LearntDeck:
    """The deck ``name`` as ``learn-deck`` stored it in :func:`deck_dir`: ``refs.npy``,
    ``head.npz`` and ``deck.json``, each checked (``dim``: the reader's embedding size).

    A deck is asked for by name (``detect --deck NAME``), so a deck that cannot be used is
    an error, never skipped: reading on without it would quietly read the cards it was
    learnt for worse. Its folder missing, any of the three files missing (learn-deck writes
    all three), or one that is not what learn-deck wrote raises :class:`DeckError` naming
    the folder or file; nothing is unpickled."""
    folder = deck_dir(name)
    if not folder.is_dir():
        raise DeckError(f"no learnt deck {name!r}: no folder {str(folder)!r} (run solitaire-coach learn-deck)")
    missing = [f for f in DECK_FILES if not (folder / f).is_file()]
    if missing:
        raise DeckError(
            f"learnt deck {name!r} in {folder}: {', '.join(missing)} missing "
            "(learn the deck again with solitaire-coach learn-deck)"
        )

    def broken(file: str, why) -> DeckError:
        if isinstance(why, ValueError) and "pickled" in str(why):  # numpy's word for any non-NumPy file
            why = "not a NumPy file"
        return DeckError(f"learnt deck {name!r}: {folder / file} is not what learn-deck writes ({why})")

    try:
        refs = np.load(folder / "refs.npy", allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise broken("refs.npy", exc) from None
    if (
        refs.ndim != 2
        or refs.shape[0] != 52
        or (dim is not None and refs.shape[1] != dim)
        or not np.issubdtype(refs.dtype, np.floating)
    ):
        raise broken("refs.npy", f"{refs.dtype} array of shape {refs.shape}, not 52 x {dim or 'D'} numbers")
    d = refs.shape[1]
    try:
        with np.load(folder / "head.npz", allow_pickle=False) as z:
            W, b = z["W"], z["b"]
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise broken("head.npz", exc) from None
    if (
        W.shape != (d, 52)
        or b.shape != (52,)
        or not (np.issubdtype(W.dtype, np.floating) and np.issubdtype(b.dtype, np.floating))
    ):
        raise broken("head.npz", f"W {W.shape} and b {b.shape}, not {d} x 52 and 52 numbers")
    try:
        meta = json.loads((folder / "deck.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise broken("deck.json", exc) from None
    if not isinstance(meta, dict):
        raise broken("deck.json", f"a JSON {type(meta).__name__}, not an object")
    for key in ("read_thresh", "read_thresh_strip"):
        v = meta.get(key, 0.5)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise broken("deck.json", f"{key} must be a number from 0 to 1, not {v!r}")
    reader = None
    if (folder / "reader.npz").is_file():
        try:
            reader = load_reader(folder / "reader.npz")
        except ValueError as exc:
            raise broken("reader.npz", exc) from None
    return LearntDeck(refs.astype(np.float32), (W.astype(np.float32), b.astype(np.float32)), meta, reader)
