"""A progress meter for long compositions (many distinct factors), on stderr.

Shown only when stderr is a terminal and the work is long enough to matter
(``progress=None``, the default), or when asked for (``progress=True``); logs and
tests stay clean. Redrawn at most five times a second.
"""

from __future__ import annotations

import sys
import time

AUTO_FACTORS = 200   # distinct factors from which the meter turns itself on


class Meter:
    def __init__(self, total: int, label: str, enabled: bool | None = None, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = (tty and total >= AUTO_FACTORS) if enabled is None else bool(enabled)
        self.total, self.done, self.label = max(total, 1), 0, label
        self._last = 0.0

    def advance(self, k: int = 1) -> None:
        self.done += k
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.2 and self.done < self.total:
            return
        self._last = now
        width = 24
        filled = int(width * min(self.done, self.total) / self.total)
        self.stream.write(f"\r{self.label}: [{'#' * filled}{'-' * (width - filled)}] "
                          f"{min(self.done, self.total)}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
