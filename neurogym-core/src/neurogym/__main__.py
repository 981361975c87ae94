"""``python -m neurogym``: the ``neurogym`` command (see :mod:`neurogym.cli`)."""

import sys

from neurogym.cli import main

sys.exit(main())
