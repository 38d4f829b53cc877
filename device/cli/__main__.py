"""``python -m device.cli``: the ``yamscope`` command."""

import sys

from device.cli import main

sys.exit(main())
