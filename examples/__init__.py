"""Examples built on the partner SDK (sdk/src/partner_sdk), run from the repository root as
`.venv/bin/python -m examples.<name>`: without the SDK installed, its source is put on the path."""

import sys
from pathlib import Path

try:
    import partner_sdk  # noqa: F401 - only whether it is installed
except ImportError:  # run from the repository without installing the SDK
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk" / "src"))
