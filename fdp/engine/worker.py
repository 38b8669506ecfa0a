"""One share of a computation in a fresh Python process (``python -m fdp.engine.worker``).
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def run(func: Callable[..., T], *args: object) -> T | None:
    """``func(*args)`` in a fresh worker process, or None if that fails.

    ``func`` must be a module-level function of an importable module. The worker
    sees this process's ``sys.path`` (so an fdp found through it is found there) and
    its environment.

    Examples
    --------
    >>> from fdp.engine import worker
    >>> import math
    >>> worker.run(math.hypot, 3.0, 4.0)
    5.0
    """
    try:
        call = pickle.dumps((func.__module__, func.__qualname__, args),
                            protocol=pickle.HIGHEST_PROTOCOL)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        proc = subprocess.run([sys.executable, "-m", "fdp.engine.worker"], input=call,
                              capture_output=True, env=env, check=False)
        if proc.returncode != 0:
            return None
        return pickle.loads(proc.stdout)
    except Exception:          # any failure: the caller computes it itself
        return None


def main() -> None:
    module, name, args = pickle.load(sys.stdin.buffer)
    func = getattr(importlib.import_module(module), name)
    sys.stdout.buffer.write(pickle.dumps(func(*args), protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    main()
