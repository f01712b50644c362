"""Reading the results JSON that quilt-flow and quilt-poisson write (one file per run)."""

import json
import os


def load_result(directory, name):
    """The results of run `name` in `directory`, or None if the run left no file or failed (a
    failed run writes {"status": "failed", "error": ...}: no results to tabulate)."""
    path = os.path.join(directory, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        r = json.load(f)
    return r if r.get("status", "ok") == "ok" else None
