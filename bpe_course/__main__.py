"""`python -m bpe_course COMMAND`: the package, imported first, has already dropped the
working directory from sys.path and made Ctrl-C quiet while it imports (see
`bpe_course._safe_path`). From here on, Ctrl-C is Python's KeyboardInterrupt again, so that
`finally` blocks run, and it ends the command with exit status 130 and no traceback."""

import signal
import sys

from .cli import main

signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    status = main()
except KeyboardInterrupt:
    status = 130
sys.exit(status)
