"""One share of a computation in a fresh Python process (``python -m fdp.engine.worker``).

The per-factor discretisation holds the GIL, so a second core is used through a
second process. ``multiprocessing`` is not used for it: its "spawn" and
"forkserver" workers re-run the caller's main script (a script without an
``if __name__ == "__main__"`` guard would run twice), and "fork" copies whatever
threads and locks the caller holds. The worker here is a plain interpreter that
imports fdp, reads one pickled call ``(module, name, args)`` on stdin, and writes
the pickled result on stdout. Any failure (no interpreter, fdp not importable
there, an argument that does not pickle, a worker that died) returns None, and
the caller computes the share itself.
"""

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
