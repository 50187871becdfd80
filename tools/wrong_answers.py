"""The project's corpus of wrong answers, summed up per worksheet.

Runs the worksheets' tests (tests/classroom/worksheets/test_ws*.py) with each wrong answer's
grading recorded, then prints, per worksheet: how many wrong answers it holds, how many
were caught and named (a test fails otherwise), the share of points they keep in all, as
the grader scores them on seed 1, and the most that one of them keeps.

    python tools/wrong_answers.py            # every worksheet
    python tools/wrong_answers.py ws07 ws12  # some of them

With BPE_WRONG_ANSWERS_KEEP=FILE set, each answer's line (test, exercise, breaks, score,
max_score) is kept in FILE, as JSON lines.
"""

import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sheet_of(test_id: str) -> str:
    """'tests/classroom/worksheets/test_ws07.py::test_...' -> 'ws07'."""
    return test_id.split("::")[0].rsplit("test_", 1)[1].removesuffix(".py")


def main(argv: list[str]) -> int:
    tests = sorted((ROOT / "tests" / "classroom" / "worksheets").glob("test_ws*.py"))
    if argv:
        tests = [t for t in tests if any(t.stem == f"test_{a}" for a in argv)]
    select = ["-p", "no:cacheprovider", "-k", "wrong_answer_is_caught", *map(str, tests)]
    listed = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", *select],
                            cwd=ROOT, capture_output=True, text=True).stdout.splitlines()
    held = collections.Counter(sheet_of(x) for x in listed if "::" in x)
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "record.jsonl"
        env = dict(os.environ, BPE_WRONG_ANSWERS_RECORD=str(record))
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", *select], cwd=ROOT, env=env)
        lines = [json.loads(x) for x in record.read_text().splitlines()] if record.exists() else []
        if os.environ.get("BPE_WRONG_ANSWERS_KEEP") and record.exists():
            Path(os.environ["BPE_WRONG_ANSWERS_KEEP"]).write_text(record.read_text())
    per = collections.defaultdict(list)
    for line in lines:
        per[sheet_of(line["test"])].append(line)
    print(f"\n{'worksheet':10} {'wrong answers':>13} {'caught and named':>17} {'points kept':>12}"
          f" {'most by one':>12}")
    total = [0, 0.0, 0.0]
    for sheet in sorted(held):
        rows = per[sheet]
        score = sum(r["score"] for r in rows)
        most = sum(r["max_score"] for r in rows)
        total[0] += len(rows)
        total[1] += score
        total[2] += most
        kept = f"{score / most:.1%}" if most else "-"
        one = f"{max(r['score'] / r['max_score'] for r in rows):.1%}" if rows else "-"
        print(f"{sheet:10} {held[sheet]:>13} {len(rows):>17} {kept:>12} {one:>12}")
    if total[2]:
        one = max(r["score"] / r["max_score"] for r in lines)
        print(f"{'all':10} {sum(held.values()):>13} {total[0]:>17} {total[1] / total[2]:>12.1%}"
              f" {one:>12.1%}")
    print("Caught and named: the wrong answer's test checked both (see the `wrong_answer` fixture"
          " in tests/classroom/conftest.py).\nPoints kept: the grader's score on seed 1, summed"
          " over the wrong answers that were caught, over the points they could have had.")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
