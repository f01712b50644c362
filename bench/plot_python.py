"""The Python the plot scripts run under: Debian's python3-matplotlib (and numpy) belong to
/usr/bin/python3, which need not be the python3 first on PATH (pyenv, a virtual environment).
require_matplotlib() re-executes the calling script once with /usr/bin/python3 when matplotlib
cannot be imported, and otherwise reports that it is missing."""
import os
import sys


def require_matplotlib(script, missing_is_error):
    """Returns once numpy and matplotlib import; else re-executes `script` (its __file__) with
    /usr/bin/python3, or exits: with status 1 if missing_is_error, else with a note and 0 (so
    that a benchmark run does not fail for want of figures)."""
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if (os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system)
            and "QUILT_PLOT_RETRY" not in os.environ):
        os.environ["QUILT_PLOT_RETRY"] = "1"
        os.execv(system, [system, os.path.abspath(script)] + sys.argv[1:])
    name = os.path.basename(script)
    message = (f"{name}: needs numpy and matplotlib (Debian: apt-get install python3-matplotlib)")
    if missing_is_error:
        sys.exit(message)
    print(f"{name}: note: no figures, matplotlib is not importable (Debian: apt-get install "
          "python3-matplotlib)")
    sys.exit(0)
