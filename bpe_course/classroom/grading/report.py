r"""The grader's report: JSON written safely after every notebook, a CSV, per-student totals.

- `write_atomic` writes to a temporary file in the report's folder and renames
  it over the report, so a reader (or a crash, or a kill) only ever sees a
  complete report; it refuses a symlink, a FIFO or anything but a regular
  file at the report's path.
- A *student* is the first folder under the PATH given to the grader
  (`class/alice/02.ipynb` is alice's); when a student has several notebooks
  for one worksheet, the best one counts and the others are listed.
- The CSV beside the JSON has one row per student and one column per
  worksheet, the shape gradebooks import.
- Every string in the report may come from a learner (a file name, an exception's
  message, a type's name). The JSON is UTF-8 with anything that is not valid UTF-8
  (a lone surrogate, a file name's undecodable byte) written as a `\udcXX` escape
  (`json_text`); the CSV the same; and what the terminal shows has every control
  character, bidirectional override and lone surrogate escaped (`printable`), so no
  escape sequence can move the cursor, repaint a row or reach the clipboard.

>>> print(printable("5 / 5\x1b[1A\x1b]52;c;cHduZWQ=\x07 \u202eevil \udcff"))
5 / 5\x1b[1A\x1b]52;c;cHduZWQ=\x07 \u202eevil \udcff
>>> json_text({"path": "caf\udce9.ipynb"})
'{"path": "caf\\udce9.ipynb"}'
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
import tempfile
from pathlib import Path

# What a terminal would act on or draw misleadingly: C0 and C1 controls (escape sequences,
# carriage returns, backspaces), invisible and bidirectional format characters, the
# byte-order mark, and lone surrogates (a file name's undecodable bytes).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                     "\ufeff\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text) -> str:
    """`text` as a terminal may show it: every control or format character and lone
    surrogate written as an escape (`\\x1b`, `\\u202e`, `\\udcff`)."""
    return _UNSAFE.sub(_escape, str(text))


def json_text(data, **options) -> str:
    """`data` as JSON text that encodes to UTF-8 whatever it holds: lone surrogates (which
    no UTF-8 can hold) become `\\udcXX` escapes inside their strings."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}",
                          json.dumps(data, ensure_ascii=False, **options))


class UnsafeReport(OSError):
    """The report's path is a symlink, a FIFO, a folder or another non-regular file."""


def check_target(path: Path) -> None:
    """Raise UnsafeReport unless `path` is missing or a regular file (and not a symlink)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        kind = ("a symlink" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a folder" if stat.S_ISDIR(mode) else "not a regular file")
        raise UnsafeReport(f"{path} is {kind}: refusing to write the report there")


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` all at once: a temporary file beside it, then a rename."""
    path = Path(path)
    check_target(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        check_target(path)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def students(notebooks: list[dict]) -> list[dict]:
    """Per-student totals: the best notebook of each worksheet counts, the others are listed."""
    by_student: dict[str, dict] = {}
    for nb in notebooks:
        entry = by_student.setdefault(nb.get("student") or "", {"worksheets": {}, "other": []})
        name = nb.get("worksheet") or "unidentified"
        best = entry["worksheets"].get(name)
        if best is None or (nb["score"], -len(nb["path"])) > (best["score"], -len(best["path"])):
            if best is not None:
                entry["other"].append(best["path"])
            entry["worksheets"][name] = {"path": nb["path"], "score": nb["score"],
                                         "max_score": nb["max_score"]}
        else:
            entry["other"].append(nb["path"])
    rows = []
    for student in sorted(by_student):
        entry = by_student[student]
        counted = {k: v for k, v in entry["worksheets"].items() if k != "unidentified"}
        rows.append({"student": student, "score": round(sum(v["score"] for v in counted.values()), 2),
                     "max_score": sum(v["max_score"] for v in counted.values()),
                     "worksheets": entry["worksheets"], "other_notebooks": sorted(entry["other"])})
    return rows


def report(notebooks: list[dict], seed: int, sandbox: str) -> dict:
    return {"notebooks": notebooks,
            "score": round(sum(nb["score"] for nb in notebooks), 2),
            "max_score": sum(nb["max_score"] for nb in notebooks),
            "students": students(notebooks), "seed": seed, "sandbox": sandbox}


def csv_text(data: dict, worksheets: list[str]) -> str:
    """One row per student, one column per worksheet (the best notebook's score)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *worksheets, "total", "max_score"])
    for row in data["students"]:
        scores = [row["worksheets"].get(w, {}).get("score", "") for w in worksheets]
        writer.writerow([_cell(row["student"]), *scores, row["score"], row["max_score"]])
    return out.getvalue()


def _cell(text: str) -> str:
    """A spreadsheet must not read a student's folder name as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def save(path: Path, data: dict, worksheets: list[str]) -> None:
    write_atomic(path, json_text(data, indent=2) + "\n")
    write_atomic(path.with_suffix(".csv"),
                 _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", csv_text(data, worksheets)))


def load_previous(path: Path) -> dict | None:
    """A report written before (for --resume), or None if there is none to read."""
    try:
        check_target(path)
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("notebooks"), list) else None


def table_rows(nb: dict) -> list[str]:
    """The notebook's rows of the printed table, every learner's string escaped."""
    rows = [f"{printable(nb['path']):<58} {nb['score']:>6g} / {nb['max_score']:g}"]
    if nb.get("error"):
        rows.append(f"    error: {printable(nb['error'])}")
    for e in nb["exercises"]:
        first = e["message"].splitlines()[0] if e["message"] else ""
        if nb.get("error") and first.startswith("not graded:"):
            first = "not graded"
        rows.append(f"    {e['id']:<24} {e['score']:>5g} / {e['max_score']:<3g} "
                    f"{printable(first[:100])}")
    speed = nb.get("speed")
    if isinstance(speed, dict):
        rows.append(f"    {'(speed check)':<24} {'':>11} {printable(speed.get('message', ''))[:100]}")
    return rows


def student_rows(data: dict) -> list[str]:
    rows = ["students (best notebook per worksheet):"]
    for s in data["students"]:
        rows.append(f"  {printable(s['student'] or '(none)'):<40} {s['score']:>6g} / "
                    f"{s['max_score']:g}")
        for other in s["other_notebooks"]:
            rows.append(f"      not counted: {printable(other)}")
    return rows
