"""``python -m aiagent.testing``: the same as ``python -m aiagent.testing.fakellm``."""

import sys

from aiagent.testing.fakellm import main

sys.exit(main())
