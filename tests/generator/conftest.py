"""The generator's tests mirror its packages (document/, lint/, ir/, targets/, docs/, build/,
diff/, commands/); documents built from real-world shapes are in shapes/, by topic. Their
shared helpers (`spec_helpers`, `diff/diff_support`) are imported by name from any folder."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE / "diff"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
