"""A progress meter for long computations, on stderr.

Derivation: docs/derivations/core.md.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

AUTO_FACTORS = 200   # distinct factors from which the meter turns itself on
AUTO_SECONDS = 2.0   # expected seconds from which it turns itself on


class Meter:
    def __init__(self, total: int, label: str, enabled: bool | None = None,
                 stream: TextIO | None = None, seconds: float = 0.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        long = total >= AUTO_FACTORS or seconds >= AUTO_SECONDS
        self.enabled = (tty and long) if enabled is None else bool(enabled)
        self.total, self.done, self.label = max(total, 1), 0, label
        self._last = 0.0
        self._lock = threading.Lock()          # compositions may advance it from threads

    def advance(self, k: int = 1) -> None:
        with self._lock:
            self.done += k
            if self.enabled:
                self._draw()

    def _draw(self) -> None:
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
