"""``python -m coach.synth ...`` — the same as ``coach synth ...``."""

import sys

from coach.synth.cli import main

sys.exit(main())
