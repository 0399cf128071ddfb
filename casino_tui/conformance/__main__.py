"""``python -m casino_tui.conformance FILE [FILE ...]``: see :mod:`.cli`."""

import sys

from .cli import main

sys.exit(main())
