"""Running one worksheet for the grader: its cells in a fresh kernel, then the probe.

The notebook's own cells run first (its check cells skipped), then one more
cell, written only after the notebook has run: the grader's own copy of
`runner`, which looks up the learner's functions and classes and writes their
raw answers to every case (hidden ones too) as JSON, for `grading` to score.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

from . import runner
from .cases import CHECKERS, WORKSHEETS
from .checks import shipped
from .runner import to_plain


def is_check_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def probe_request(name: str, out: str, time_limit: float) -> dict:
    """What the probe needs: for each exercise, the learner's name and every case (hidden too)."""
    exercises = []
    for exercise in WORKSHEETS[name]:
        checker = CHECKERS[exercise]
        groups = [dict(shipped(g), env={k: to_plain(v) for k, v in g.env.items()})
                  for g in checker.groups()]
        exercises.append({"id": exercise, "target": checker.target, "methods": checker.own,
                          "groups": groups})
    return {"exercises": exercises, "out": out, "time_limit": time_limit}


def probe_source(request_file: str) -> str:
    """The last cell: the grader's own copy of `runner`, then `probe`."""
    source = Path(runner.__file__).read_text(encoding="utf-8")
    return "\n".join([
        "def _bpe_course_probe():",
        "    import json",
        "    runner = {'__name__': 'bpe_course_grader'}",
        f"    exec(compile({source!r}, '<bpe_course grader>', 'exec'), runner)",
        f"    with open({request_file!r}, encoding='utf-8') as f:",
        "        request = json.load(f)",
        "    runner['probe'](request, globals())",
        "_bpe_course_probe()",
    ])


def interrupt(client, wait: float = 10) -> bool:
    """Interrupt the running cell (a KeyboardInterrupt); True if the kernel then answers."""
    from queue import Empty

    from nbclient.util import ensure_async, run_sync

    async def stop():
        await ensure_async(client.km.interrupt_kernel())
        msg_id = client.kc.execute("", store_history=False)
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = await ensure_async(client.kc.shell_channel.get_msg(timeout=left))
            except Empty:
                return False
            if msg["parent_header"].get("msg_id") == msg_id:
                return True
        return False
    return run_sync(stop)()


def run_notebook(nb, workdir: str, request: dict, cell_timeout: float, total_timeout: float
                 ) -> tuple[str | None, dict]:
    """Run the notebook's cells (check cells skipped) and then the probe, in a fresh kernel.

    Returns (error or None, the probe's answers so far).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbformat.v4 import new_code_cell

    deadline = time.monotonic() + total_timeout
    client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3", allow_errors=True,
                            interrupt_on_timeout=False, shutdown_kernel="immediate",
                            resources={"metadata": {"path": workdir}})
    errors = []
    with tempfile.TemporaryDirectory() as private:
        request = dict(request, out=str(Path(private) / "answers.json"))
        try:
            with client.setup_kernel(stderr=subprocess.DEVNULL):   # no kernel log lines
                cells = [(i, c) for i, c in enumerate(nb.cells)
                         if c.cell_type == "code" and not is_check_cell(c)]
                probe_index = len(nb.cells)
                cells.append((probe_index, None))            # the probe comes last
                for index, cell in cells:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        errors.append(f"stopped at cell {index + 1}: the notebook's time limit "
                                      f"of {total_timeout:g} s was reached")
                        break
                    if cell is None:                      # written only now, after the notebook ran
                        request_file = Path(private) / "request.json"
                        request_file.write_text(json.dumps(request), encoding="utf-8")
                        cell = new_code_cell(probe_source(str(request_file)))
                        nb.cells.append(cell)
                    client.timeout = max(1, int(min(cell_timeout if index < probe_index
                                                    else total_timeout, remaining)))
                    try:
                        client.execute_cell(cell, index)
                    except CellTimeoutError:
                        what = f"cell {index + 1}" if index < probe_index else "grading"
                        if not interrupt(client, wait=min(10.0, cell_timeout)):
                            errors.append(f"{what} ran longer than {client.timeout} s and could "
                                          f"not be stopped")
                            break
                        errors.append(f"{what} ran longer than {client.timeout} s and was stopped")
                    except DeadKernelError:
                        what = f"cell {index + 1}" if index < probe_index else "grading"
                        errors.append(f"the kernel died while running {what} (out of memory, "
                                      f"a crash or os._exit?)")
                        break
        except Exception as e:           # the kernel would not start or stop cleanly
            if not errors:
                errors.append(f"could not run the notebook: {type(e).__name__}: {e}")
        answers = {}
        try:
            answers = json.loads(Path(request["out"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    return ("; ".join(errors) or None), (answers if isinstance(answers, dict) else {})
