"""Reason lengths: how long the advice's reasons are, and which templates are longest.

Plays whole games on the virtual table, keeps every advice and prints, per strategy and
draw count, the median, 90th percentile and longest reason (characters), how many would
take more than two lines in the live picture at 1280x720, and the longest templates
(card names and numbers replaced by placeholders).

    python bench/reason_lengths.py --first 0 --count 41 --think-time 0.05
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections import Counter

from solitaire_coach.app.simulate import percentile, play_game
from solitaire_coach.core import Rules, deal_for_seed
from solitaire_coach.core.advisor import make_strategy

_CARD = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")


def template(text: str) -> str:
    """``text`` with card names as ``<c>``, suit symbols as ``<s>`` and numbers as ``N``."""
    return re.sub(r"\d+", "N", re.sub(r"[♣♦♥♠]", "<s>", _CARD.sub("<c>", text)))


def picture_lines(text: str) -> int:
    """Lines ``text`` takes as the reason in the live picture at 1280x720 (uncut)."""
    from solitaire_coach.capture.serial_trigger import ascii_line
    from solitaire_coach.vision.overlay import _wrap

    return len(_wrap(ascii_line(text, 1000), 0.95, 2, 1240))


class _Recording:
    """A strategy that keeps every advice it gave."""

    def __init__(self, inner) -> None:
        self.inner, self.said, self.name = inner, [], inner.name

    def advise(self, state, history=()):
        advice = self.inner.advise(state, history)
        self.said.append(advice)
        return advice


def collect(strategy: str, rules: Rules, seeds, think_time: float) -> list:
    """Every advice of ``strategy``'s games on ``seeds``."""
    said = []
    for seed in seeds:
        options = {"think_time": think_time} if strategy == "best" else {}
        recording = _Recording(make_strategy(strategy, **options))
        play_game(deal_for_seed(seed), recording, rules)
        said += recording.said
    return said


def report(label: str, said: list, top: int) -> None:
    reasons = [a.reason for a in said if a.reason]
    lengths = sorted(len(r) for r in reasons)
    lines = {r: picture_lines(r) for r in set(reasons)}
    over = sum(lines[r] > 2 for r in reasons)
    print(
        f"{label}: {len(said)} advices, {len(reasons)} reasons; length median {statistics.median(lengths)}, "
        f"p90 {percentile(lengths, 0.9):.0f}, max {lengths[-1]}; over 2 lines at 1280x720: {over}"
    )
    longest: dict[str, int] = {}
    counts = Counter(template(r) for r in reasons)
    for r in reasons:
        t = template(r)
        longest[t] = max(longest.get(t, 0), len(r))
    for t, n in sorted(longest.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n:4d} x{counts[t]:<5d} {t}")
    texts = Counter(template(a.text) for a in said if a.status in ("won", "lost"))
    for t, n in texts.most_common():
        print(f"  end text ({len(t)}) x{n}: {t}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--count", type=int, default=41)
    p.add_argument("--think-time", type=float, default=0.05)
    p.add_argument("--strategy", action="append", help="strategies (default best and baseline)")
    p.add_argument("--top", type=int, default=12, help="longest templates shown")
    args = p.parse_args()
    seeds = range(args.first, args.first + args.count)
    for strategy in args.strategy or ["best", "baseline"]:
        for rules in (Rules(draw_count=1), Rules(draw_count=3, redeal_limit=None)):
            said = collect(strategy, rules, seeds, args.think_time)
            report(f"{strategy} draw {rules.draw_count}", said, args.top)


if __name__ == "__main__":
    main()
