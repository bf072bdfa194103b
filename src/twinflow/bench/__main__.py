"""``python -m twinflow.bench``."""
import sys

from . import main

sys.exit(main())
