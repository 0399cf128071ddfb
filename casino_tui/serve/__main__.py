"""``python -m casino_tui.serve``: the same as ``casino-tui serve``."""

import sys

from . import main

sys.exit(main())
