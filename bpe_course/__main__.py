"""`python -m bpe_course COMMAND`: the package, imported first, has already dropped the
working directory from sys.path (see `bpe_course._safe_path`)."""

import sys

from .cli import main

sys.exit(main())
