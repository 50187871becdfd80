"""Every chapter ends with a short check-yourself quiz.

The quiz is the last cells of the notebook, each tagged `quiz` (so that the quiz can be
found, and re-applied, apart from the chapter's text): a markdown heading cell
"## Check yourself", then 3 to 6 markdown cells with one question each. A question's
answer and its explanation are hidden in plain HTML that renders in JupyterLab, Colab and
static HTML alike:

    <details><summary>Answer</summary>

    ...markdown...

    </details>

(The blank line after `</summary>` lets the markdown inside render.) Quiz cells are
markdown, so they have no outputs and nbval never runs them.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.relative_to(ROOT).as_posix() for p in CHAPTERS]
TAG = "quiz"
HEADING = "## Check yourself"
MIN_QUESTIONS, MAX_QUESTIONS = 3, 6
ANSWER = re.compile(r"<details>\s*<summary>(?P<summary>.*?)</summary>(?P<after>\n\n)?"
                    r"(?P<body>.*?)</details>", re.DOTALL)


def is_quiz(cell) -> bool:
    return TAG in cell.get("metadata", {}).get("tags", [])


def quiz_problems(nb) -> list[str]:
    """What is wrong with a notebook's quiz (an empty list: nothing)."""
    cells = nb.cells
    tagged = [n for n, c in enumerate(cells) if is_quiz(c)]
    if not tagged:
        return ["no cell is tagged 'quiz': the chapter has no quiz"]
    problems = []
    if tagged != list(range(tagged[0], len(cells))):
        problems.append(f"cells tagged 'quiz' ({tagged}) are not the last cells of the "
                        f"notebook ({len(cells)} cells)")
    quiz = [cells[n] for n in tagged]
    for n, cell in zip(tagged, quiz):
        if cell.cell_type != "markdown":
            problems.append(f"quiz cell {n} is a {cell.cell_type} cell, not markdown")
        if cell.get("outputs"):
            problems.append(f"quiz cell {n} has outputs")
    heading, questions = quiz[0], quiz[1:]
    if not heading.source.startswith(HEADING):
        problems.append(f"the first quiz cell (cell {tagged[0]}) does not start with "
                        f"{HEADING!r}: {heading.source[:40]!r}")
    if "<details>" in heading.source:
        problems.append("the heading cell holds an answer; each question needs a cell of its own")
    if not MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS:
        problems.append(f"{len(questions)} questions, not {MIN_QUESTIONS} to {MAX_QUESTIONS}")
    for n, cell in zip(tagged[1:], questions):
        source = cell.source
        answers = list(ANSWER.finditer(source))
        if source.count("<details>") != 1 or source.count("</details>") != 1 or len(answers) != 1:
            problems.append(f"quiz cell {n} has {source.count('<details>')} <details> blocks "
                            f"(with a <summary>: {len(answers)}), not exactly one")
            continue
        answer = answers[0]
        if not source[:answer.start()].strip():
            problems.append(f"quiz cell {n} has no question before its <details>")
        if source[answer.end():].strip():
            problems.append(f"quiz cell {n} has text after its </details>")
        if not answer["summary"].strip():
            problems.append(f"quiz cell {n}: the <summary> is empty")
        if not answer["after"]:
            problems.append(f"quiz cell {n}: no blank line after </summary>, so the markdown "
                            "of the answer would not render")
        if not answer["body"].strip():
            problems.append(f"quiz cell {n}: the answer is empty")
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_chapter_ends_with_a_quiz(path):
    assert quiz_problems(nbformat.read(path, as_version=4)) == []


def test_every_chapter_is_checked():
    assert len(CHAPTERS) >= 11, [p.name for p in CHAPTERS]


def quiz_notebook(*question_sources, heading=HEADING + "\n\nTry each question first."):
    cells = [nbformat.v4.new_markdown_cell("# A chapter"), nbformat.v4.new_code_cell("1 + 1")]
    for source in (heading, *question_sources):
        cell = nbformat.v4.new_markdown_cell(source)
        cell.metadata["tags"] = [TAG]
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells)


def question(text="**1.** Why?", answer="**Because.** One paragraph."):
    return f"{text}\n\n<details><summary>Answer</summary>\n\n{answer}\n\n</details>"


def test_a_good_quiz_passes():
    assert quiz_problems(quiz_notebook(question(), question(), question())) == []


@pytest.mark.parametrize("broken, message", [
    (lambda nb: [c.metadata.pop("tags", None) for c in nb.cells], "no cell is tagged"),
    (lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("[Next](x.ipynb)")),
     "not the last cells"),
    (lambda nb: nb.cells[2].update(source="## Questions"), "does not start with"),
    (lambda nb: nb.cells.pop(), "2 questions"),
    (lambda nb: nb.cells.extend(nb.cells[3:] * 2), "9 questions"),
    (lambda nb: nb.cells[3].update(source="**1.** Why?"), "0 <details> blocks"),
    (lambda nb: nb.cells[3].update(source=question() + "\n\n" + question()), "2 <details>"),
    (lambda nb: nb.cells[3].update(source="**1.** Why?\n\n<details>\n\nBecause.\n\n</details>"),
     "(with a <summary>: 0)"),
    (lambda nb: nb.cells[3].update(source=question(text="")), "no question before"),
    (lambda nb: nb.cells[3].update(source=question(answer="")), "the answer is empty"),
    (lambda nb: nb.cells[3].update(source=question().replace("</summary>\n\n", "</summary>")),
     "no blank line after"),
    (lambda nb: nb.cells[3].update(cell_type="code", outputs=[], execution_count=None),
     "is a code cell"),
])
def test_a_broken_quiz_is_caught(broken, message):
    nb = quiz_notebook(question(), question(), question())
    broken(nb)
    problems = quiz_problems(nb)
    assert any(message in p for p in problems), problems
