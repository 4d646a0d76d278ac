"""Pure statistics of the harness: median and spread of timings, geometric means and the beats/ties/loses rule."""
import math
from typing import Iterable, List, Optional, Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile of `values` with linear interpolation between order statistics (numpy's default)."""
    if not values:
        raise ValueError("quantile of no values")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return quantile(values, 0.5)


def spread(values: Sequence[float]) -> float:
    """Half the interquartile range: the +- the tables print beside a median."""
    return (quantile(values, 0.75) - quantile(values, 0.25)) / 2


def geometric_mean(values: Iterable[float]) -> Optional[float]:
    """The geometric mean of the positive values, None when there is none."""
    positive = [v for v in values if v is not None and v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


def verdict(ours_ms: float, ours_spread: float, theirs_ms: float, theirs_spread: float) -> str:
    """'beats' or 'loses' when the medians differ by more than both spreads together, else 'ties'.

    The same rule pet-opt's measured selection uses to write a program instead of its input.
    """
    margin = ours_spread + theirs_spread
    if ours_ms < theirs_ms - margin:
        return "beats"
    if ours_ms > theirs_ms + margin:
        return "loses"
    return "ties"


def rotation(count: int, round_index: int) -> List[int]:
    """The order in which round `round_index` times `count` variants: each round starts one later."""
    return [(round_index + k) % count for k in range(count)] if count else []
