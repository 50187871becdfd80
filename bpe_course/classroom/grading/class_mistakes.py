"""What the class got wrong: for each exercise, the kinds of mistake and how many learners made each.

The checkers already diagnose every wrong answer (`checking.verdicts.diagnose`): a kind of
mistake from `KINDS` (an input changed, state shared, None returned, ...) or from the
checker's own recogniser (a `merge` that does not skip past a match, ...), with its words
for the learner. This module carries those diagnoses from the grader's scoring to the
instructor, in three steps:

1. While an exercise is scored, `Mistakes` diagnoses its failed cases (the first, then
   small ones, at most `MAX_DIAGNOSED` within `DIAGNOSIS_BUDGET` seconds) and gives the
   exercise's result its `mistakes`: one entry per kind, the kind the message names first
   (`[]` for full points), each with its stable
   `kind` key, its plain-words `label`, how many failed `cases` showed it, and what the
   checker told the learner (`says`, `hint`). What keeps an exercise from its points
   without a failed case is an *outcome* of the same shape (`OUTCOMES`: not attempted, not
   graded, not defined, ...); a failed case no kind was recognised for counts under
   `unnamed_<what it breaks>` (a key of `worksheets.common.BREAKS`). Every key comes from
   the trusted side; a learner's string is never a key.
2. `tally` counts, over the report, each kind once per learner (a learner is the first
   folder under PATH; the best notebook of each worksheet counts, as `report.students`
   chooses it), per worksheet and exercise, the exercise the class did worst first and
   each exercise's kinds by how many learners made them. A learner's unnamed cases count
   only when the checker named none of their exercise's mistakes (otherwise they are most
   likely the named mistake, on a case no recogniser foresaw). The grade command writes
   this tally into the JSON report as `class_mistakes`.
3. `page` writes that as one HTML page that needs nothing else (no script, no network: the
   plots are SVG inside the page as data URIs), with the notebooks that did not run and
   why. Every string is escaped (`text`): what a learner controls (a folder name, a file
   name, an error's message) shows as text and never as markup, with control and
   bidirectional characters written as escapes, as the terminal shows them.

The grade command writes the page beside the JSON report (`--html`).

>>> sorted(label(k, "") for k in ("mutated", "not_attempted", "unnamed_edge"))
['a mistake the checker does not name: it fails an edge case', 'changed its input', 'not attempted yet']
"""

from __future__ import annotations

import base64
import collections
import html
import io
import re
import time

from ..checking.plain import Raised
from ..checking.verdicts import KINDS, diagnose, hint_for, inputs_of
from ..worksheets import WORKSHEETS
from ..worksheets.common import BREAKS
from . import report

MAX_DIAGNOSED = 64          # failed cases of one exercise diagnosed, at most
# Seconds spent diagnosing one exercise's cases after its first, checked between them. A
# recogniser may model the mistake on the case's input (ws12's `viterbi` takes up to 6 s
# on a page of text), so only the first failed case (the one the message shows) is
# diagnosed whatever its size; after it, only small cases (weight 1) within this budget.
# Measured on the project's corpus of wrong answers (tests/classroom/worksheets, ws12):
# diagnosing every failed case took 25 s of the 26 s of scoring its 40 answers; with this
# rule 1.1 s of 1.8 s (28 ms an exercise; ws02: 18 ms, ws07: 7 ms; 2026-11-29).
DIAGNOSIS_BUDGET = 0.5
MAX_WORDS = 600             # characters of a checker's words kept in the report

# What keeps an exercise from its points without a failed case, or a case with no answer.
# (key, label, mistake?): an outcome that is no mistake of the learner's is listed apart.
OUTCOMES = {
    "not_attempted": ("not attempted yet", False),
    "not_graded": ("not graded: the notebook did not run far enough", False),
    "not_run": ("some cases never ran: the notebook's grading stopped", False),
    "not_defined": ("not defined in the notebook", True),
    "wrong_kind": ("a function where a class is asked, or the other way round", True),
    "not_yours": ("the course's own code handed in instead of the learner's", True),
    "unrecorded": ("not recorded (a report written by an earlier grader)", False),
}
_KEY = re.compile(r"[a-z][a-z0-9_]{0,39}")


# `KINDS`' words are what a message contains; where they are no phrase on their own:
_LABELS = {"course_error": "an error inside a course function the answer called"}


def label(kind: str, says: str) -> str:
    """A kind's plain words: `KINDS`' or `OUTCOMES`', else the first clause of what the
    checker said (a recogniser's sentence starts with its name for the mistake).

    >>> label("tie", "your segmentation has the same total: on a tie keep the longer piece")
    'your segmentation has the same total'
    >>> label("fffd", "U+FFFD (the replacement character) is dropped too. Keep it.")
    'U+FFFD (the replacement character) is dropped too'
    """
    if kind in _LABELS or kind in KINDS:
        return _LABELS.get(kind) or KINDS[kind]
    if kind in OUTCOMES:
        return OUTCOMES[kind][0]
    if kind.startswith("unnamed_") and kind[8:] in BREAKS:
        words = BREAKS[kind[8:]][1].replace("fails an edge", "it fails an edge")
        return f"a mistake the checker does not name: {words}"
    first = re.split(r": |\. |; ", says.strip(), maxsplit=1)[0].rstrip(".")
    return (first if len(first) <= 100 else first[:99] + "…") or kind.replace("_", " ")


def is_mistake(kind: str) -> bool:
    """Is `kind` a mistake of the learner's (not an outcome such as "not graded")?"""
    return OUTCOMES.get(kind, ("", True))[1]


def outcome(kind: str, why: str = "") -> list[dict]:
    """The `mistakes` of an exercise that got no answers to compare: one `OUTCOMES` entry."""
    return [{"kind": kind, "label": label(kind, ""), "cases": 0, "says": _cut(why),
             "hint": ""}]


def _cut(words: str) -> str:
    return words if len(words) <= MAX_WORDS else words[:MAX_WORDS - 1] + "…"


def misuse_kind(info: dict, kind: str) -> str:
    """The outcome of an answer `checking.verdicts.misuse` refused: missing, the wrong kind
    of thing (`kind` is the checker's, "function" or "class"), or the course's own."""
    if info.get("missing"):
        return "not_defined"
    return "wrong_kind" if info.get("kind", "something else") != kind else "not_yours"


class Mistakes:
    """The kinds of mistake one exercise's failed cases show, collected while it is scored.

    >>> from bpe_course.classroom.worksheets import CHECKERS
    >>> merge = CHECKERS["merge"]
    >>> group = merge.groups()[0]
    >>> seen = Mistakes(merge)
    >>> seen.add(group, group.cases[1], [3, 256], None, "wrong")
    >>> [(m["kind"], m["label"], m["cases"]) for m in seen.found()]
    [('none', 'returned None', 1)]
    """

    def __init__(self, checker):
        self.checker = checker
        self.kinds: dict[str, dict] = {}
        self.diagnosed = 0
        self.spent = 0.0

    def add(self, group, case, expected, got, breaks: str) -> None:
        """Diagnose one failed case (`breaks`: what its failure breaks, a key of `BREAKS`)."""
        if self.diagnosed and (self.diagnosed >= MAX_DIAGNOSED or case.weight > 1
                               or self.spent > DIAGNOSIS_BUDGET):
            return
        self.diagnosed += 1
        started = time.monotonic()
        if isinstance(got, Raised) and got.type_name == "NotRun":
            kind, says, hint = "not_run", got.message, ""
        else:
            try:                    # diagnosing must never cost the learner the score
                inputs = inputs_of(case.code, group.env, self.checker.target)
                diagnosis = diagnose(self.checker, case, expected, got, inputs)
                hint = hint_for(case, got, diagnosis)
            except Exception:
                diagnosis, hint = None, case.hint
            kind, says = ((diagnosis.kind, diagnosis.text) if diagnosis is not None
                          else (f"unnamed_{breaks}", ""))
        if not _KEY.fullmatch(kind):
            kind = f"unnamed_{breaks}"
        self.spent += time.monotonic() - started
        entry = self.kinds.setdefault(kind, {"kind": kind, "label": label(kind, says),
                                             "cases": 0, "says": _cut(says),
                                             "hint": _cut(hint or "")})
        entry["cases"] += 1

    def found(self, slow: bool = False) -> list[dict]:
        """One entry per kind, in the order of the cases (the message names the first); a
        failed speed check (`slow`) adds the kind "slow"."""
        found = list(self.kinds.values())
        if slow and "slow" not in self.kinds:
            found.append({"kind": "slow", "label": KINDS["slow"], "cases": 0,
                          "says": "it failed the worksheet's speed check", "hint": ""})
        return found


# -- the class, from the report ----------------------------------------------------------------

def counted(data: dict) -> dict[str, dict[str, dict]]:
    """{worksheet: {learner: notebook}}: the notebook that counts for each learner and
    worksheet, as `report.students` chose it (the best one)."""
    by_path = {}
    for nb in data.get("notebooks", []):
        if isinstance(nb, dict) and isinstance(nb.get("path"), str):
            by_path.setdefault(nb["path"], nb)
    found: dict[str, dict[str, dict]] = {}
    for row in data.get("students", []):
        for name, best in (row.get("worksheets") or {}).items():
            nb = by_path.get(best.get("path")) if isinstance(best, dict) else None
            if name in WORKSHEETS and nb is not None:
                found.setdefault(name, {})[str(row.get("student", ""))] = nb
    return found


def _mistakes_of(exercise: dict) -> list[dict]:
    """An exercise's `mistakes`, well formed (a report written before them has none)."""
    listed = exercise.get("mistakes")
    if not isinstance(listed, list):
        if exercise.get("score") == exercise.get("max_score"):
            return []
        return outcome("unrecorded")
    return [m for m in listed if isinstance(m, dict) and isinstance(m.get("kind"), str)]


def tally(data: dict) -> list[dict]:
    """Per worksheet (in the course's order), per exercise (the one with the lowest mean
    score first), the kinds of mistake and how many learners made each (each learner once
    per kind, from the notebook that counts), most learners first; `first` counts each
    learner once, under the kind their message named ("passed" for full points)."""
    sheets = []
    by_sheet = counted(data)
    for name in WORKSHEETS:
        learners = by_sheet.get(name)
        if not learners:
            continue
        exercises = []
        for exercise, points in WORKSHEETS[name].points.items():
            kinds: dict[str, dict] = {}
            first: collections.Counter = collections.Counter()
            scores, graded = [], 0
            for student in sorted(learners):
                entry = next((e for e in learners[student].get("exercises", [])
                              if isinstance(e, dict) and e.get("id") == exercise), None)
                if entry is None:
                    continue
                graded += 1
                scores.append(entry.get("score") or 0)
                mistakes = _mistakes_of(entry)
                first[mistakes[0]["kind"] if mistakes else "passed"] += 1
                named = any(not m["kind"].startswith("unnamed_") for m in mistakes)
                for m in mistakes:
                    if named and m["kind"].startswith("unnamed_"):
                        continue        # most likely the named mistake, on a case unrecognised
                    kind = kinds.setdefault(m["kind"], {
                        "kind": m["kind"], "label": collections.Counter(),
                        "says": collections.Counter(), "hint": collections.Counter(),
                        "students": []})
                    if student not in kind["students"]:
                        kind["students"].append(student)
                    for field in ("label", "says", "hint"):
                        if isinstance(m.get(field), str) and m[field]:
                            kind[field][m[field]] += 1
            rows = []
            for kind in kinds.values():
                words = {f: (kind[f].most_common(1)[0][0] if kind[f] else "")
                         for f in ("label", "says", "hint")}
                rows.append({"kind": kind["kind"], "label": words["label"] or kind["kind"],
                             "learners": len(kind["students"]),
                             "share": round(len(kind["students"]) / max(1, graded), 3),
                             "first": first[kind["kind"]],
                             "mistake": is_mistake(kind["kind"]), "says": words["says"],
                             "hint": words["hint"], "students": kind["students"]})
            rows.sort(key=lambda r: (not r["mistake"], -r["learners"], r["kind"].startswith(
                "unnamed_"), -first[r["kind"]], r["label"]))
            exercises.append({"id": exercise, "max_score": points, "learners": graded,
                              "full_marks": first["passed"],
                              "mean_score": round(sum(scores) / max(1, len(scores)), 2),
                              "kinds": rows, "first": dict(first.most_common())})
        exercises.sort(key=lambda e: (e["mean_score"] / max(1, e["max_score"]),
                                      -sum(r["learners"] for r in e["kinds"] if r["mistake"])))
        sheets.append({"worksheet": name, "learners": len(learners), "exercises": exercises})
    return sheets


def failures(data: dict) -> list[dict]:
    """The notebooks that did not run to the end: learner, path, worksheet and error."""
    return [{"student": str(nb.get("student") or ""), "path": str(nb.get("path", "")),
             "worksheet": nb.get("worksheet") or "", "error": str(nb["error"])}
            for nb in data.get("notebooks", []) if isinstance(nb, dict) and nb.get("error")]


def reason(error: str) -> str:
    """An error as the failures are counted: its first line, numbers and quoted names
    written as placeholders.

    >>> reason("stopped at cell 4: the notebook's time limit of 25 s was reached")
    "stopped at cell N: the notebook's time limit of N s was reached"
    """
    line = error.splitlines()[0] if error else ""
    line = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", line)
    return re.sub(r"\d+(\.\d+)?", "N", line)[:160]


# -- the page -----------------------------------------------------------------------------------

def text(value) -> str:
    """Any value as HTML text: control, format and bidirectional characters and lone
    surrogates written as escapes (`report.printable`), then `<`, `>`, `&` and quotes
    escaped, so that no string becomes markup or reorders what is around it."""
    return html.escape(report.printable(value), quote=True)


COLOURS = ["#c0392b", "#2471a3", "#d68910", "#7d3c98", "#17a589", "#a04000", "#2e4053",
           "#b7950b", "#1abc9c", "#884ea0", "#5d6d7e", "#cb4335"]
PASSED = "#27ae60"
OUTCOME_COLOURS = {"not_attempted": "#d5d8dc", "not_graded": "#99a3a4", "not_run": "#aab7b8",
                   "unrecorded": "#e5e8e8"}


def _plain(value) -> str:
    """A string as matplotlib draws it literally: escapes for what no font holds (controls,
    lone surrogates) and `$`, which would start mathematical text."""
    return report.printable(value).replace("$", r"\$")


def plot(sheet: dict) -> str:
    """A worksheet's picture as a data URI (SVG): one bar per exercise, as many learners
    long, split by the kind of mistake each learner's message named first."""
    # On first need: matplotlib takes a second to import.
    import matplotlib
    from matplotlib.figure import Figure

    exercises = list(reversed(sheet["exercises"]))            # the worst at the top
    kinds = []
    for e in sheet["exercises"]:
        for kind in e["first"]:
            if kind != "passed" and kind not in kinds:
                kinds.append(kind)
    kinds.sort(key=lambda k: (not is_mistake(k), -sum(e["first"].get(k, 0)
                                                      for e in sheet["exercises"])))
    words = {r["kind"]: r["label"] for e in sheet["exercises"] for r in e["kinds"]}
    mistakes = [k for k in kinds if is_mistake(k)]
    colour = {k: COLOURS[i % len(COLOURS)] for i, k in enumerate(mistakes)}
    height = 0.9 + 0.42 * len(exercises) + 0.2 * (len(kinds) + 1)
    with matplotlib.rc_context({"svg.hashsalt": "class-mistakes", "svg.fonttype": "path",
                                "font.size": 9}):
        figure = Figure(figsize=(9, height), layout="constrained")
        axes = figure.add_subplot()
        left = [0] * len(exercises)
        for kind in ["passed", *kinds]:
            counts = [e["first"].get(kind, 0) for e in exercises]
            if not any(counts):
                continue
            name = ("full points" if kind == "passed" else
                    _plain(words.get(kind) or label(kind, "")))
            bars = axes.barh(range(len(exercises)), counts, left=left,
                             color=PASSED if kind == "passed" else colour.get(
                                 kind, OUTCOME_COLOURS.get(kind, "#bfc5ca")),
                             hatch="//" if kind in ("not_graded", "not_run") else "",
                             edgecolor="white",
                             label=name if len(name) <= 90 else name[:89] + "…")
            axes.bar_label(bars, [str(n) if n else "" for n in counts], label_type="center",
                           fontsize=8, color="white" if kind in colour or kind == "passed"
                           else "black")
            left = [a + b for a, b in zip(left, counts)]
        axes.set_yticks(range(len(exercises)), [_plain(e["id"]) for e in exercises])
        axes.set_xlim(0, max(1, sheet["learners"]))
        axes.set_xlabel("learners (each counted once, under the first mistake their "
                        "message names)")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.set_title(_plain(sheet["worksheet"]), loc="left")
        axes.spines[["top", "right"]].set_visible(False)
        figure.legend(loc="outside lower left", frameon=False, fontsize=8, ncols=2)
        out = io.BytesIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode("ascii")


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #1c2833;
       padding: 0 1em; }
h1 { margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 2px solid #d5d8dc; }
h3 { margin: 1.5em 0 .3em; font-size: 1.05em; }
table { border-collapse: collapse; width: 100%; margin: .4em 0 1em; }
th, td { text-align: left; vertical-align: top; padding: .3em .6em; border-bottom: 1px solid #e5e8e8; }
th { background: #f4f6f6; } td.n { text-align: right; white-space: nowrap; }
tr.outcome td { color: #707b7c; } tr.outcome .bar { background: #bfc5ca; }
.bar { display: inline-block; height: .7em; background: #c0392b; margin-right: .4em; }
.says { font-size: .9em; } .hint { font-size: .9em; color: #566573; }
.meta, .note { color: #566573; } code { font-size: .92em; }
img.plot { max-width: 100%; height: auto; }
details summary { cursor: pointer; color: #2471a3; }
"""


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _kinds_table(exercise: dict) -> list[str]:
    whole = exercise["learners"]
    if not exercise["kinds"]:
        return [f"<p>Every learner got full points ({whole}).</p>"]
    out = ["<table><thead><tr><th>kind of mistake</th><th>learners</th><th>share</th>"
           "<th>what the checker tells them</th><th>who</th></tr></thead><tbody>"]
    for row in exercise["kinds"]:
        width = round(6 * row["learners"] / max(1, whole), 2)
        hint = (f'<div class="hint">hint: {text(row["hint"])}</div>' if row["hint"] else "")
        who = ", ".join(text(s or "(no folder)") for s in row["students"])
        out.append(
            f'<tr class="{"mistake" if row["mistake"] else "outcome"}" '
            f'data-kind="{text(row["kind"])}">'
            f'<td>{text(row["label"])}<br><code>{text(row["kind"])}</code></td>'
            f'<td class="n">{row["learners"]} of {whole}</td>'
            f'<td class="n"><span class="bar" style="width:{width}em"></span>'
            f'{_share(row["learners"], whole)}</td>'
            f'<td><div class="says">{text(row["says"])}</div>{hint}</td>'
            f'<td><details><summary>{row["learners"]} learner'
            f'{"s" if row["learners"] != 1 else ""}</summary>{who}</details></td></tr>')
    out.append("</tbody></table>")
    return out


def page(data: dict, title: str = "What the class got wrong") -> str:
    """The instructor's page: the class's most common mistakes, then per worksheet a plot
    and per exercise (worst first) the kinds of mistake and how many learners made each,
    then the notebooks that did not run and why. One file: no script, nothing fetched."""
    sheets = tally(data)
    failed = failures(data)
    learners = {str(s.get("student", "")) for s in data.get("students", []) if isinstance(s, dict)}
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
           'img-src data:; style-src \'unsafe-inline\'">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{text(title)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{text(title)}</h1>",
           f'<p class="meta">{len(learners)} learner{"s" if len(learners) != 1 else ""}, '
           f'{len(data.get("notebooks", []))} notebooks, {len(failed)} of which did not run '
           f'to the end; seed {text(data.get("seed"))}, sandbox: {text(data.get("sandbox"))}.'
           f' A learner is the first folder under the graded path; the best notebook of each '
           f'worksheet counts, and each learner counts once per kind of mistake.</p>']
    top = sorted(((row["learners"], row["share"], sheet["worksheet"], e["id"], row)
                  for sheet in sheets for e in sheet["exercises"] for row in e["kinds"]
                  if row["mistake"]),
                 key=lambda t: (-t[0], -t[1], -t[4]["first"], t[2], t[3]))[:10]
    if top:
        out.append('<h2 id="most-common">The most common mistakes</h2><table id="top"><thead>'
                   "<tr><th>worksheet</th><th>exercise</th><th>kind of mistake</th>"
                   "<th>learners</th><th>share</th></tr></thead><tbody>")
        for n, share, sheet, exercise, row in top:
            out.append(f'<tr><td>{text(sheet)}</td><td><a href="#ex-{text(sheet)}-'
                       f'{text(exercise)}"><code>{text(exercise)}</code></a></td>'
                       f"<td>{text(row['label'])}</td><td class=\"n\">{n}</td>"
                       f"<td class=\"n\">{share:.0%}</td></tr>")
        out.append("</tbody></table>")
    for sheet in sheets:
        out.append(f'<section class="worksheet" id="ws-{text(sheet["worksheet"])}">'
                   f'<h2>{text(sheet["worksheet"])}</h2><p class="meta">{sheet["learners"]} '
                   f'learner{"s" if sheet["learners"] != 1 else ""} handed it in. Exercises '
                   f'from the lowest mean score up.</p>')
        out.append(f'<img class="plot" alt="learners of {text(sheet["worksheet"])} by the '
                   f'first mistake named, per exercise" src="{plot(sheet)}">')
        for e in sheet["exercises"]:
            out.append(f'<h3 id="ex-{text(sheet["worksheet"])}-{text(e["id"])}">'
                       f'<code>{text(e["id"])}</code>: mean {e["mean_score"]:g} of '
                       f'{e["max_score"]:g} points; {e["full_marks"]} of {e["learners"]} '
                       f'learners got full points</h3>')
            out += _kinds_table(e)
        out.append("</section>")
    out.append(f'<h2 id="failed">Notebooks that did not run to the end ({len(failed)})</h2>')
    if failed:
        reasons = collections.Counter(reason(f["error"]) for f in failed)
        out.append('<table id="reasons"><thead><tr><th>why</th><th>notebooks</th></tr></thead>'
                   "<tbody>")
        out += [f'<tr><td>{text(r)}</td><td class="n">{n}</td></tr>'
                for r, n in sorted(reasons.items(), key=lambda t: (-t[1], t[0]))]
        out.append('</tbody></table><table id="failures"><thead><tr><th>learner</th>'
                   "<th>notebook</th><th>worksheet</th><th>error</th></tr></thead><tbody>")
        out += [f"<tr><td>{text(f['student'] or '(no folder)')}</td><td><code>"
                f"{text(f['path'])}</code></td><td>{text(f['worksheet'])}</td>"
                f"<td>{text(f['error'])}</td></tr>"
                for f in sorted(failed, key=lambda f: (f["student"], f["path"]))]
        out.append("</tbody></table>")
    else:
        out.append("<p>Every notebook ran to the end.</p>")
    out.append('<p class="note">Kinds of mistake are the checkers\' diagnoses of each failed '
               "case (the first " f"{MAX_DIAGNOSED} of an exercise): a key of "
               "<code>KINDS</code> or a checker's own, in the JSON report's "
               "<code>mistakes</code>. Greyed rows are outcomes, not mistakes.</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(path, data: dict) -> None:
    """Write the page for the report `data` to `path`, atomically (`report.write_atomic`)."""
    report.write_atomic(path, page(data))
