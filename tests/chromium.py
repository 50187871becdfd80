"""What the browser tests share: the system's Chromium, its flags, where screenshots go, and
the marks that skip a browser test (with the reason) where Chromium or Playwright is missing.

    from chromium import ARTEFACTS, CHROMIUM, FLAGS, BROWSER_MARKS, sync_playwright

The tests use Debian's Chromium (`apt-get install chromium`, or BPE_CHROMIUM=/path/to/chrome),
never Playwright's own browser download, with flags for a machine with no network beyond
package registries and no GPU. Screenshots go under build/browser/ (BPE_BROWSER_ARTIFACTS).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTEFACTS = Path(os.environ.get("BPE_BROWSER_ARTIFACTS", ROOT / "build" / "browser"))
CHROMIUM = next((p for p in (os.environ.get("BPE_CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), "/usr/bin/chromium")
                 if p and Path(p).is_file()), None)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    expect = sync_playwright = None

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None,
                       reason="browser tests need the playwright package (pip install playwright)"),
    pytest.mark.skipif(CHROMIUM is None,
                       reason="browser tests need Chromium (apt-get install chromium, "
                              "or set BPE_CHROMIUM)"),
]
