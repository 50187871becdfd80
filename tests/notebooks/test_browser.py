"""The learner's JupyterLab, driven in headless Chromium as a learner would use it.

A real `jupyter lab` (configured as `make lab` configures it) serves a copy of the
course; Playwright drives the system's Chromium (Playwright's own browser download
is never used). The tests run chapter 01 with "Run all" and find no error; run
chapter 03 to its end past its deliberate error; type into chapter 03's token
explorer and watch the counts change; open a worksheet from the file browser;
and find no nbgrader tooling, no Jupyter news popup and no warning in the server's
log.

    python -m pytest -m browser tests/notebooks/test_browser.py     # or: make test-browser

Needs `chromium` (Debian: `apt-get install chromium`; or set BPE_CHROMIUM to a
Chromium/Chrome binary) and the `playwright` package; skipped with the reason
otherwise. Screenshots go to build/browser/ (BPE_BROWSER_ARTIFACTS to change
it): one per step, and FAILED-<step>.png with the server log when a step fails.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from chromium import ARTEFACTS, BROWSER_MARKS, CHROMIUM, FLAGS, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "bpe-course-browser-test"
# The page `make lab` opens, read from the Makefile so that the two cannot drift apart.
DEFAULT_URL = re.search(r"--LabApp\.default_url=(\S+)", (ROOT / "Makefile").read_text()).group(1)

pytestmark = BROWSER_MARKS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, copy_tree):
    """`jupyter lab` as `make lab` starts it, serving a copy of the course (Run all saves)."""
    tmp = tmp_path_factory.mktemp("lab")
    course = tmp / "course"
    for folder in ("notebooks", "exercises", "solutions"):
        copy_tree(ROOT / folder, course / folder)
    settings = tmp / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Every cell in the page (no virtual scrolling), so the test can see every output.
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    # The kernel `make lab` registers (tools/learner-lab/kernel.py), in this test's own
    # Jupyter data folder, so that it is the one used whatever environment runs the test.
    subprocess.run([sys.executable, str(ROOT / "tools" / "learner-lab" / "kernel.py"), "install",
                    str(tmp / "prefix")], check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JUPYTER_CONFIG_DIR": str(tmp / "config"),
           "JUPYTER_PATH": str(tmp / "prefix" / "share" / "jupyter"),
           "JUPYTER_CONFIG_PATH": str(ROOT / "tools" / "learner-lab"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "PYTHONHASHSEED": "0"}
    log = open(tmp / "server.log", "w+", encoding="utf-8")
    # A free port can be taken by another test's process (a Dask scheduler, say) between the
    # moment we find it and the moment Jupyter binds it. So Jupyter may not move to another
    # port (port_retries=0): if it cannot bind, it exits and we try again on a new port, and
    # ask only once our server has written its file in its own runtime folder.
    for attempt in range(5):
        port = free_port()
        args = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
                "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={course}", "--LabApp.expose_app_in_browser=True",
                f"--LabApp.default_url={DEFAULT_URL}"]
        if os.geteuid() == 0:
            args.append("--allow-root")
        server = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=course)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while server.poll() is None and time.monotonic() < deadline:
            if list((tmp / "runtime").glob("jpserver-*.json")):   # ours has bound its port
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                    break
                except (OSError, http.client.HTTPException):
                    pass
            time.sleep(0.5)
        else:
            if server.poll() is None:         # still running, yet never answered: give up
                server.kill()
                log.seek(0)
                pytest.fail("jupyter lab did not start:\n" + log.read()[-3000:])
            continue                          # it exited (port taken): a new port
        break
    else:
        log.seek(0)
        pytest.fail("jupyter lab did not start on any of 5 ports:\n" + log.read()[-3000:])
    yield {"url": url, "course": course, "log": log}
    log.flush()
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(log.name, ARTEFACTS / "server.log")
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


@pytest.fixture(scope="module")
def page(lab, tmp_path_factory):
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for old in [*ARTEFACTS.glob("*.png"), *ARTEFACTS.glob("*.log")]:
        old.unlink()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            headless=True, args=FLAGS, viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(30_000)
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"{lab['url']}/?token={TOKEN}")        # where `make lab` sends the browser
        yield page
        context.close()


@contextlib.contextmanager
def step(page, lab, name):
    """Screenshot the page after a step; on failure, also keep the server's log."""
    try:
        yield
    except BaseException:
        page.screenshot(path=ARTEFACTS / f"FAILED-{name}.png", full_page=True)
        lab["log"].flush()
        shutil.copy(lab["log"].name, ARTEFACTS / f"FAILED-{name}-server.log")
        raise
    page.screenshot(path=ARTEFACTS / f"{name}.png")


# Reads the open notebook's model through JupyterLab's own objects.
CELLS_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.content.widgets.filter(c => c.model.type === 'code').map(c => ({
    count: c.model.executionCount,
    errors: c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename),
    tags: c.model.getMetadata('tags') || []}));
}"""


def current_title(page) -> str:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label")


def open_notebook(page, name):
    """Wait until notebook `name` is the current tab and its kernel is idle (a kernel's first
    start took over 60 s once, on a 2-core machine at a load average of 6)."""
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.title.label === "
                           + json.dumps(name), timeout=180_000)
    wait_idle(page)


def wait_idle(page, timeout=180_000):
    """Wait until the current notebook's kernel says it is idle.

    Subtle: JupyterLab learns a kernel's state only from the status messages the kernel
    broadcasts (iopub), and asks a newly connected kernel for its info once. Once, in a CI
    run on a busy machine, the kernel stayed "Unknown" for the whole 180 s although the
    server had started it and connected to it (the symptom of jupyterlab#7683); a status
    message broadcast before the server has subscribed is lost, which would do it. So, as
    the server's own "nudge" does, ask again every 10 s while the state is unknown on a live
    connection, and reconnect a connection that has not come up in 60 s. A kernel that never
    starts still fails the test."""
    page.wait_for_function("""() => {
      const s = window.jupyterapp.shell.currentWidget.sessionContext;
      const k = s && s.session && s.session.kernel;
      if (!k) return false;
      if (k.status === 'idle') return true;
      const now = Date.now(), w = window.__bpeNudge = window.__bpeNudge || {since: now, last: now};
      if (k.status === 'unknown' && k.connectionStatus === 'connected' && now - w.last > 10000) {
        w.last = now;
        k.requestKernelInfo().catch(() => {});
      } else if (k.connectionStatus !== 'connected' && now - w.since > 60000) {
        w.since = w.last = now;
        k.reconnect().catch(() => {});
      }
      return false;
    }""", timeout=timeout, polling=500)
    page.evaluate("() => { delete window.__bpeNudge; }")


def run_all(page, timeout=150_000):
    """Run → Run All Cells from the menu bar, then wait until every code cell has run."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    page.wait_for_function(f"""() => ({CELLS_JS})().every(c => c.count !== null)
                                     && window.jupyterapp.shell.currentWidget.sessionContext
                                        .session.kernel.status === 'idle'""", timeout=timeout)
    return page.evaluate(CELLS_JS)


def test_chapter_01_opens_and_runs_all_without_an_error(page, lab):
    with step(page, lab, "01-chapter01-run-all"):
        assert DEFAULT_URL == "/lab/tree/notebooks/01_unicode_and_bytes.ipynb"
        open_notebook(page, "01_unicode_and_bytes.ipynb")
        # as the README says: the file browser shows the chapter's folder, notebooks/
        browser_path = page.evaluate("() => document.querySelector('.jp-BreadCrumbs').innerText")
        assert "notebooks" in browser_path, browser_path
        cells = run_all(page)
        assert [c for c in cells if c["errors"]] == []
        assert len(cells) > 10
        page.locator(".jp-RenderedImage img").first.scroll_into_view_if_needed()


def test_a_notebook_opened_and_saved_unedited_is_unchanged(page, lab):
    """Its stored kernelspec is the lab kernel's, so opening marks nothing as edited; the
    language_info JupyterLab records on saving loses its Python version again (the learner
    lab's pre-save hook), so the file is byte for byte the one in the repository."""
    with step(page, lab, "01b-open-and-save-unedited"):
        path = "notebooks/02_naive_bpe.ipynb"
        page.wait_for_function("() => window.jupyterapp", timeout=180_000)
        page.evaluate(f"async () => {{ await window.jupyterapp.restored; "
                      f"await window.jupyterapp.commands.execute("
                      f"'docmanager:open', {{path: {json.dumps(path)}}}); }}")
        open_notebook(page, "02_naive_bpe.ipynb")
        time.sleep(2)                                 # let the kernel's info settle
        dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
        page.evaluate("async () => { await window.jupyterapp.commands.execute('docmanager:save'); }")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
        time.sleep(1)
        saved = (lab["course"] / path).read_bytes()
        assert saved == (ROOT / path).read_bytes()
        assert not dirty, "the notebook shows as edited as soon as it opens"


def test_the_learner_sees_no_nbgrader_tooling(page, lab):
    with step(page, lab, "02-no-nbgrader"):
        menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
        assert "Run" in menus and not [m for m in menus if "grader" in m.lower()]
        assert page.get_by_role("button", name=re.compile("Validate")).count() == 0
        assert page.locator("text=Create Assignment").count() == 0


def test_the_learner_gets_no_jupyter_news_popup(page, lab):
    # Runs after chapter 01's Run all: JupyterLab asks for consent seconds after it loads.
    with step(page, lab, "02-no-news-popup"):
        config = page.evaluate("() => JSON.parse("
                               "document.getElementById('jupyter-config-data').textContent)")
        assert config["disabledExtensions"].count(
            "@jupyterlab/apputils-extension:announcements") == 1, config["disabledExtensions"]
        assert page.get_by_text(re.compile("notified about official Jupyter news")).count() == 0


def test_chapter_03_runs_to_the_end_past_its_deliberate_error(page, lab):
    with step(page, lab, "03-chapter03-run-all"):
        page.evaluate("() => { window.jupyterapp.commands.execute('docmanager:open',"
                      " {path: 'notebooks/03_encode_decode.ipynb'}); }")
        open_notebook(page, "03_encode_decode.ipynb")
        cells = run_all(page)
        failed = [c for c in cells if c["errors"]]
        assert [c["errors"] for c in failed] == [["UnicodeDecodeError"]]
        assert "raises-exception" in failed[0]["tags"]
        counts = [c["count"] for c in cells]
        assert counts == sorted(counts) and cells.index(failed[0]) < len(cells) - 1


def test_typing_into_the_token_explorer_changes_the_counts(page, lab):
    with step(page, lab, "04-token-explorer"):
        explorer = page.locator(".bpe-token-explorer")
        expect(explorer).to_have_count(1)
        explorer.scroll_into_view_if_needed()
        counts = explorer.locator(".bpe-counts")
        before = counts.inner_text()
        assert re.search(r"yours \d+ · (GPT-2 \d+ · )?GPT-4 \d+ · GPT-4o \d+", before), before
        numbers = [int(n) for n in counts.locator("b").all_inner_texts()]
        box = explorer.locator("textarea")
        box.click()
        box.press("End")
        box.press_sequentially(" Tokenizers différent: 안녕하세요 🦊🦊", delay=15)
        expect(counts).not_to_have_text(before)
        # every keystroke is a round trip to the kernel: wait until the counts settle
        seen = [counts.inner_text()]
        for _ in range(40):
            time.sleep(0.5)
            seen.append(counts.inner_text())
            if seen[-1] == seen[-2]:
                break
        after = [int(n) for n in counts.locator("b").all_inner_texts()]
        assert len(after) == len(numbers) and all(a > b for a, b in zip(after, numbers))
        # the same colours and hover ids as show_tokens
        first = explorer.locator(".bpe-column span[title]").first
        assert first.get_attribute("title").isdigit()


def test_a_worksheet_opens_from_the_file_browser_at_the_repository_root(page, lab):
    with step(page, lab, "05-worksheet-from-file-browser"):
        if not page.locator(".jp-DirListing").first.is_visible():
            page.locator('.jp-SideBar [data-id="filebrowser"]').click()
        page.locator(".jp-BreadCrumbs-home").first.click()
        items = page.locator(".jp-DirListing-itemText")
        expect(items.filter(has_text=re.compile(r"^exercises$"))).to_have_count(1)
        names = items.all_inner_texts()
        assert {"exercises", "notebooks", "solutions"} <= set(names), names
        items.filter(has_text=re.compile(r"^exercises$")).dblclick()
        items.filter(has_text=re.compile(r"^02_bpe_basics\.ipynb$")).dblclick()
        open_notebook(page, "02_bpe_basics.ipynb")
        sources = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets"
                                ".filter(c => c.model.type === 'code')"
                                ".map(c => c.model.sharedModel.getSource())")
        assert any(src.startswith("def get_stats") and "# YOUR CODE HERE" in src
                   for src in sources)
        expect(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .cm-content",
                            has_text="# YOUR CODE HERE").first).to_be_visible()


def test_the_server_log_has_no_warnings(page, lab):
    lab["log"].flush()
    lines = Path(lab["log"].name).read_text(encoding="utf-8").splitlines()
    warnings = [l for l in lines if re.match(r"\[[WEC] ", l) or "WARNING" in l]
    # Jupyter says so of every notebook it did not write itself (stored outputs from git);
    # running the notebook makes it trusted. Nothing a learner can or should change.
    # And tornado >= 6.5 objects, once, to jupyter_server's own default websocket ping
    # timeout (3x the interval); setting them equal makes the server drop live kernels.
    known = (r"Notebook \S+ is not trusted$",
             r"The websocket_ping_timeout \(90000\) cannot be longer than the "
             r"websocket_ping_interval \(30000\)")
    warnings = [l for l in warnings if not any(re.search(k, l) for k in known)]
    assert warnings == []
