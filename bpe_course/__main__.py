"""`python -m bpe_course COMMAND`: the package has already dropped the working directory
from sys.path (see `bpe_course._safe_path`); this repeats it before the commands import."""

import sys

from ._safe_path import drop_working_directory

drop_working_directory()

from .cli import main

sys.exit(main())
