import sys
from pathlib import Path

# Let tests import their helpers (hard_strings) wherever pytest is started.
sys.path.insert(0, str(Path(__file__).parent))
