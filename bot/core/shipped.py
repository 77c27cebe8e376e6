"""The definitions the project ships in its top-level ``data/`` folder (the reported
reference results).

They are read from the repository's ``data/`` beside the packages (a source checkout,
or the editable install the README uses), else from where a wheel installs them
(``<prefix>/share/benchboard/``, pyproject's ``data-files``). Never from the configured
data folder: that one may be anywhere (a volume, a test's temporary folder) and holds
what is downloaded and generated, not what is shipped.

Why this and not package data: package data must sit inside a package, and the layout
keeps definitions in ``data/`` at the top; ``data-files`` copies them into the wheel
unchanged, and one lookup here covers both installs.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

#: Where shipped definitions are looked for, in order.
FOLDERS = (
    Path(__file__).resolve().parents[2] / "data",
    Path(sysconfig.get_path("data")) / "share" / "benchboard",
)


def path(name: str) -> Path:
    """The shipped file ``name``; :class:`FileNotFoundError` when the install lacks it."""
    for folder in FOLDERS:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    searched = ", ".join(str(f) for f in FOLDERS)
    raise FileNotFoundError(f"{name} is not shipped with this install (looked in {searched})")
