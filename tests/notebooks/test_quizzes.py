"""Every chapter ends with a short check-yourself quiz.

The quiz is the notebook's last cell, a markdown cell tagged `quiz` (so that it can be
found apart from the chapter's text): the heading "## Check yourself", then 3 to 6
questions. Each question's answer and explanation are hidden in plain HTML that renders in
JupyterLab, Colab and static HTML alike:

    **1.** The question ...

    <details><summary>Answer</summary>

    ...markdown...

    </details>

(The blank line after `</summary>` lets the markdown inside render.) A quiz cell is
markdown, so it has no outputs and nbval never runs it.
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
    if tagged != [len(cells) - 1]:
        return [f"the quiz must be the notebook's last cell, alone; cells tagged 'quiz': "
                f"{tagged} of {len(cells)}"]
    cell = cells[-1]
    problems = []
    if cell.cell_type != "markdown":
        problems.append(f"the quiz is a {cell.cell_type} cell, not markdown")
    if cell.get("outputs"):
        problems.append("the quiz cell has outputs")
    source = cell.source
    if not source.startswith(HEADING):
        problems.append(f"the quiz does not start with {HEADING!r}: {source[:40]!r}")
    answers = list(ANSWER.finditer(source))
    if source.count("<details>") != len(answers) or source.count("</details>") != len(answers):
        problems.append(f"{source.count('<details>')} <details> blocks, of which "
                        f"{len(answers)} have a <summary> and an end")
    if not MIN_QUESTIONS <= len(answers) <= MAX_QUESTIONS:
        problems.append(f"{len(answers)} questions, not {MIN_QUESTIONS} to {MAX_QUESTIONS}")
    start = len(HEADING)
    for k, answer in enumerate(answers, 1):
        if not source[start:answer.start()].strip():
            problems.append(f"answer {k} has no question before it")
        if not answer["summary"].strip():
            problems.append(f"answer {k}: the <summary> is empty")
        if not answer["after"]:
            problems.append(f"answer {k}: no blank line after </summary>, so the markdown "
                            "of the answer would not render")
        if not answer["body"].strip():
            problems.append(f"answer {k} is empty")
        start = answer.end()
    if answers and source[start:].strip():
        problems.append("text after the last answer")
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_chapter_ends_with_a_quiz(path):
    assert quiz_problems(nbformat.read(path, as_version=4)) == []


def test_every_chapter_is_checked():
    assert len(CHAPTERS) >= 11, [p.name for p in CHAPTERS]


def quiz_notebook(*questions, heading=HEADING + "\n\nTry each question first."):
    cells = [nbformat.v4.new_markdown_cell("# A chapter"), nbformat.v4.new_code_cell("1 + 1")]
    quiz = nbformat.v4.new_markdown_cell("\n\n".join([heading, *questions]))
    quiz.metadata["tags"] = [TAG]
    return nbformat.v4.new_notebook(cells=[*cells, quiz])


def question(text="**1.** Why?", answer="**Because.** One paragraph."):
    return f"{text}\n\n<details><summary>Answer</summary>\n\n{answer}\n\n</details>"


def good(n=3):
    return [question(f"**{k}.** Why?") for k in range(1, n + 1)]


def test_a_good_quiz_passes():
    assert quiz_problems(quiz_notebook(*good())) == []
    assert quiz_problems(quiz_notebook(*good(6))) == []


def with_source(source):
    return lambda nb: nb.cells[-1].update(source=source)


@pytest.mark.parametrize("broken, message", [
    (lambda nb: nb.cells[-1].metadata.pop("tags"), "no cell is tagged"),
    (lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("[Next](x.ipynb)")),
     "must be the notebook's last cell"),
    (with_source("## Questions\n\n" + "\n\n".join(good())), "does not start with"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good(2))), "2 questions"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good(7))), "7 questions"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good()) + "\n\n**4.** Why?\n\n"
                 "<details>\n\nBecause.\n\n</details>"), "of which 3 have a <summary>"),
    (with_source(HEADING + "\n\n" + question(text="") + "\n\n" + "\n\n".join(good())),
     "answer 1 has no question before it"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good()) + "\n\n" + question(answer="")),
     "answer 4 is empty"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good()).replace("</summary>\n\n",
                                                                  "</summary>", 1)),
     "no blank line after"),
    (with_source(HEADING + "\n\n" + "\n\n".join(good()) + "\n\nAnd one more thing."),
     "text after the last answer"),
    (lambda nb: nb.cells[-1].update(cell_type="code", outputs=[], execution_count=None),
     "is a code cell"),
])
def test_a_broken_quiz_is_caught(broken, message):
    nb = quiz_notebook(*good())
    broken(nb)
    problems = quiz_problems(nb)
    assert any(message in p for p in problems), problems
