"""The worksheets' rules read from the learner's source (`checking.source_rules`).

Each test is a notebook as a learner writes it (a worked solution with cells added or
replaced), read the way the grader reads it; no learner code runs here. The grader's
own tests (`tests/classroom/grading/test_grading_attacks.py`) grade such notebooks in
bubblewrap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_course.classroom.checking import source_rules
from bpe_course.classroom.checking.source_rules import breaches
from bpe_course.classroom.worksheets import WORKSHEETS

ROOT = Path(__file__).resolve().parents[3]


def code_cells(folder: str, name: str) -> list[tuple[int, str]]:
    nb = json.loads((ROOT / folder / f"{name}.ipynb").read_text(encoding="utf-8"))
    cells = []
    for i, cell in enumerate(nb["cells"]):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and not (meta.get("grade") and not meta.get("solution")):
            cells.append((i, "".join(cell["source"])))
    return cells


def found(name: str, *extra: str, folder: str = "solutions") -> dict[str, list[str]]:
    """{exercise: [kind: line, ...]} for the solution of `name` with `extra` cells after."""
    cells = code_cells(folder, name) + [(100 + k, source) for k, source in enumerate(extra)]
    return {e: [f"{b.kind}: {b.text()}" for b in found]
            for e, found in breaches(cells, WORKSHEETS[name]).items() if found}


@pytest.mark.parametrize("name", sorted(WORKSHEETS))
@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_the_worksheets_as_published_break_no_rule(folder, name):
    assert found(name, folder=folder) == {}


# -- write it yourself: names resolved through imports and aliases ----------------------------

TRAINERS = [
    "import bpe_course as b\n"
    "def train_bpe(text, vocab_size, special_tokens=(), pattern=None):\n"
    "    return b.training.trainer.learn_merges(text, vocab_size)\n",
    "from bpe_course.training import trainer as t\n"
    "fast = t.train_bpe\n"
    "def train_bpe(text, vocab_size, special_tokens=(), pattern=None):\n"
    "    return fast(text, vocab_size)\n",
    "import bpe_course\n"
    "def train_bpe(text, vocab_size, special_tokens=(), pattern=None):\n"
    "    from bpe_course import train_bpe as theirs\n"
    "    return theirs(text, vocab_size)\n",
    "import bpe_course.training.trainer\n"
    "def train_bpe(text, vocab_size, special_tokens=(), pattern=None):\n"
    "    return getattr(bpe_course.training.trainer, 'learn_merges')(text, vocab_size)\n",
]


@pytest.mark.parametrize("source", TRAINERS)
def test_the_course_trainer_reached_through_any_alias_is_named(source):
    lines = found("07_fast_training", source)["train_bpe"]
    assert any(line.startswith("course: cell 101,") and "bpe_course.training.trainer." in line
               and "which this exercise asks you to write yourself" in line for line in lines)


def test_the_unwrapped_trainer_is_named_and_counted_as_hidden():
    lines = found("07_fast_training", "import bpe_course.training.trainer as t\n"
                  "def train_bpe(text, vocab_size, special_tokens=(), pattern=None):\n"
                  "    return t.learn_merges.__wrapped__(text, vocab_size)\n")["train_bpe"]
    assert "course: cell 101, line 3: calls the course's bpe_course.training.trainer." \
           "learn_merges, which this exercise asks you to write yourself" in lines
    assert any(line.startswith("hidden: cell 101, line 3: the attribute __wrapped__")
               for line in lines)


def test_a_helper_used_through_the_learners_own_function_counts_for_each_exercise_using_it():
    # merge_words may use pretokenize, count_pretokens may not: a helper of the notebook
    # that calls it counts against count_pretokens alone (and train_bpe, which uses it).
    got = found("07_fast_training", "from bpe_course import pretokenize\n"
                "def _count(text, specials, pattern):\n"
                "    return pretokenize.count_pretokens(text, pattern, specials)\n"
                "def count_pretokens(text, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):\n"
                "    return dict(_count(text, list(special_tokens), pattern))\n")
    assert set(got) == {"count_pretokens", "train_bpe"}
    assert got["count_pretokens"][0].startswith("course: cell 101, line 3: calls the course's "
                                                "bpe_course.pretokenize.count_pretokens")


def test_super_reaches_the_method_of_the_course_base():
    got = found("05_special_tokens", "class SpecialTokenizer(SpecialTokenizer):\n"
                "    def save(self, file_prefix):\n"
                "        return super(RegexTokenizer, self).save(file_prefix)\n"
                "    def load(self, model_file):\n"
                "        return super().load(model_file)\n")
    assert [line.split(": calls")[0] for line in got["save_load"]] == [
        "course: cell 101, line 3"]          # super().load: this class's base, the learner's
    assert "bpe_course.base.Tokenizer.save" in got["save_load"][0]


def test_the_last_binding_counts_in_a_function_and_the_one_in_force_at_cell_level():
    # An imports cell that names the course's merge, then the learner's own: fine. Binding
    # the course's after the learner's is not.
    assert found("02_bpe_basics", "from bpe_course.pairs import merge\n",
                 "def merge(ids, pair, idx):\n    return list(ids)\n") == {}
    got = found("02_bpe_basics", "from bpe_course.pairs import merge as m\nmerge = m\n")
    assert got["merge"] == ["course: cell 101, line 2: calls the course's bpe_course.pairs."
                            "merge, which this exercise asks you to write yourself"]


def test_the_course_data_and_the_check_cells_checkers_are_not_code_to_write():
    assert found("04_regex_tokenizer", "import bpe_course\n"
                 "PATTERN = bpe_course.GPT4_SPLIT_PATTERN\n"
                 "def chunked_stats(chunks):\n"
                 "    from bpe_course import checks\n"
                 "    stats = {}\n"
                 "    for chunk in chunks:\n"
                 "        for pair in zip(chunk, chunk[1:]):\n"
                 "            stats[pair] = stats.get(pair, 0) + 1\n"
                 "    return stats if PATTERN else checks\n") == {}


# -- a helper the worksheet names works anywhere ------------------------------------------------

def test_a_named_helper_used_at_cell_level_is_no_breach():
    # Worksheet 09 names get_encoding for tokens_per_byte: a table built with it at cell
    # level, then the function in a later cell (graded 0 by the lock of old, issue 33).
    assert found("09_tokenization_in_practice",
                 "from bpe_course import get_encoding\n"
                 "ENCODINGS = {name: get_encoding(name) for name in ('gpt2', 'cl100k_base')}\n",
                 "def tokens_per_byte(text, encoding_name):\n"
                 "    return len(ENCODINGS[encoding_name].encode(text)) / len(text.encode())\n"
                 ) == {}


def test_a_helper_the_exercise_forbids_is_a_breach_at_cell_level_too():
    # get_encoding is worksheet 06's helper for recover_merges, forbidden to GPT4Tokenizer.
    got = found("06_gpt4_tokenizer", "ENCODING = get_encoding('cl100k_base')\n",
                "class GPT4Tokenizer(RegexTokenizer):\n"
                "    def __init__(self, name='cl100k_base'):\n"
                "        super().__init__()\n"
                "        self.inner = ENCODING\n")
    assert got == {"gpt4_tokenizer": [
        "course: cell 101, line 1: calls the course's bpe_course.openai.encodings.get_encoding, "
        "which this exercise asks you to write yourself"]}


# -- UTF-8 by hand -------------------------------------------------------------------------------

NOT_BY_HAND = {
    "list(bytes(chr(cp), 'utf-8'))": "bytes(..., encoding)",
    "list(bytes(chr(cp), encoding='utf-8'))": "bytes(..., encoding)",
    "list(chr(cp).encode())": ".encode()",
    "list(str.encode(chr(cp)))": ".encode()",
    "list(getattr(chr(cp), 'encode')())": ".encode()",
    "list(codecs.encode(chr(cp), 'utf-8'))": "codecs.encode",
    "list(memoryview(bytearray(chr(cp), 'utf-8')))": "bytearray(..., encoding)",
    "list(os.fsencode(chr(cp)))": "os.fsencode",
}


@pytest.mark.parametrize("body", sorted(NOT_BY_HAND))
def test_utf8_by_python_is_not_by_hand(body):
    got = found("01_utf8_warmups", "import codecs, os\n"
                f"def encode_code_point(cp):\n    return {body}\n")
    assert list(got) == ["encode_code_point"]
    assert any(line.startswith(f"by_hand: cell 101, line 3: not by hand: it uses "
                               f"{NOT_BY_HAND[body]}") for line in got["encode_code_point"])


def test_by_hand_is_the_rule_of_its_exercise_alone():
    # utf8_bytes may encode: the worksheet shows text.encode('utf-8') for it.
    assert found("01_utf8_warmups", "def utf8_bytes(text):\n"
                 "    return list(text.encode('utf-8'))\n") == {}


# -- nothing hidden -------------------------------------------------------------------------------

HIDING = {
    "getattr(chr(cp), 'en' + 'code')()": "getattr() with a computed name",
    "eval('chr(cp).en' + 'code()')": "eval()",
    "__import__('cod' + 'ecs').encode(chr(cp), 'utf-8')": "__import__()",
    "importlib.import_module('codecs').encode(chr(cp))": "importlib.import_module",
    "globals()['enc'](cp)": "globals()",
    "sys.modules['codecs'].encode(chr(cp))": "sys.modules",
    "vars(str)['encode'](chr(cp))": "vars()",
    "str.__dict__['encode'](chr(cp))": "the attribute __dict__",
    "functools.partial(getattr, chr(cp))('en' + 'code')()": "getattr passed as a value",
}


@pytest.mark.parametrize("body", sorted(HIDING))
def test_code_that_hides_what_it_calls_breaks_the_rule(body):
    got = found("01_utf8_warmups", "import functools, importlib, sys\n"
                f"def encode_code_point(cp):\n    return list({body})\n")
    assert (f"hidden: cell 101, line 3: {HIDING[body]} hides what the code calls, so the "
            f"worksheet's rules cannot be checked: call functions by name"
            ) in got["encode_code_point"]


def test_hiding_at_cell_level_counts_against_every_exercise():
    got = found("02_bpe_basics", "exec('def merge(ids, pair, idx): return ids')\n")
    assert set(got) == set(WORKSHEETS["02_bpe_basics"].points)
    patched = found("07_fast_training", "import bpe_course.training.counting as c\n"
                    "c.count_corpus = lambda *args: {}\n")
    assert "assignment to the course's bpe_course.training.counting.count_corpus" in \
        patched["train_bpe"][0]


def test_what_hides_nothing_is_no_breach():
    # gc paused around a trainer (as the course's own does), getattr with a constant name
    # on the notebook's own object, a partial of a visible function.
    assert found("07_fast_training", "import functools, gc\n"
                 "gc.disable()\n"
                 "_train = train_bpe\n"
                 "def train_bpe(text, vocab_size, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):\n"
                 "    gc.collect()\n"
                 "    run = functools.partial(_train, text, vocab_size)\n"
                 "    return getattr(run, 'func')(text, vocab_size, special_tokens, pattern)\n"
                 ) == {}


def test_a_module_the_notebook_wrote_is_code_no_one_read():
    got = found("02_bpe_basics", "open('helpers.py', 'w').write('from bpe_course import *')\n"
                "import helpers\n")
    assert got["merge"][0].startswith("hidden: cell 101, line 2: import helpers (a module")


def test_magics_are_read_as_the_kernel_runs_them():
    # %timeit's code is read; %pip and !shell run no Python of the notebook's; %run does.
    assert found("02_bpe_basics", "%pip install --quiet regex\n!ls\n"
                 "%timeit -n 3 merge([1, 2, 3], (1, 2), 9)\n",
                 "%%time\nx = get_stats([1, 2, 3])\n") == {}
    assert found("02_bpe_basics", "%run helpers.py\n")["merge"][0].startswith(
        "hidden: cell 101, line 1: the magic %run")
    assert found("07_fast_training", "%%time\n"
                 "from bpe_course.training.trainer import train_bpe\n")["train_bpe"][0] == (
        "course: cell 101, line 2: calls the course's bpe_course.training.trainer.train_bpe, "
        "which this exercise asks you to write yourself")
    assert "by_hand: cell 101, line 1" in found("01_utf8_warmups", (
        "%time def encode_code_point(cp): return list(chr(cp).encode())"))["encode_code_point"][0]


def test_the_colab_setup_cell_only_asks_sys_modules_and_find_spec():
    assert found("01_utf8_warmups", 'import sys\nfrom importlib.util import find_spec\n'
                 'if "google.colab" in sys.modules and find_spec("bpe_course") is None:\n'
                 '    print("in Colab")\n') == {}


# -- old module names, the check cells, cost --------------------------------------------------------

def test_moved_modules_resolve_to_todays_names():
    assert source_rules.canonical("bpe_course.encodings.load_ranks") == (
        "bpe_course.openai.encodings.load_ranks", True)
    assert source_rules.canonical("bpe_course.merge") == ("bpe_course.pairs.merge", True)
    got = found("06_gpt4_tokenizer", "from bpe_course.encodings import get_encoding as g\n"
                "class GPT4Tokenizer(RegexTokenizer):\n"
                "    def __init__(self, name='cl100k_base'):\n"
                "        super().__init__()\n"
                "        self.inner = g(name)\n")
    assert "bpe_course.openai.encodings.get_encoding" in got["gpt4_tokenizer"][0]
    assert source_rules.missing_course_modules([(0, "import bpe_course.spm_model\n")]) == []
    assert source_rules.missing_course_modules([(0, "from bpe_course.gone import x\n")]) == [
        "bpe_course.gone"]


def test_a_check_cell_names_the_rule_with_the_runtime_names_it_reaches():
    # Outside a kernel the checker reads the answer's own source, and the course objects
    # its code reaches by name (a reference kept from an earlier cell).
    import bpe_course
    from bpe_course import checks
    kept = bpe_course.merge

    def merge(ids, pair, idx):
        return kept(ids, pair, idx)
    verdict = checks.merge(merge)
    assert not verdict.passed and verdict.message == (
        "❌ merge: the source of merge, line 2: calls the course's bpe_course.pairs.merge, "
        "which this exercise asks you to write yourself")

    def encode_code_point(cp):
        return list(chr(cp).encode("utf-8"))
    assert "not by hand: it uses .encode()" in checks.encode_code_point(encode_code_point).message


def test_reading_every_worksheet_is_cheap():
    # The grader reads each notebook once, beside a sandbox run of seconds.
    import time
    cells = {name: code_cells("solutions", name) for name in WORKSHEETS}
    breaches(cells["02_bpe_basics"], WORKSHEETS["02_bpe_basics"])          # imports, caches
    start = time.process_time()
    for _ in range(3):
        for name, sheet in WORKSHEETS.items():
            source_rules._parse.cache_clear()
            breaches(cells[name], sheet)
    assert (time.process_time() - start) / (3 * len(WORKSHEETS)) < 0.25


def test_a_cell_too_costly_to_tokenize_is_read_line_by_line():
    # On Python 3.12.0-3.12.3 IPython's tokenizing of `x = ---...1` (200,000 signs) took the
    # grader past 20 GB; the reader must stay small on every Python and still read the rest
    # (here a line of 200,000 tokens that parses).
    import resource
    source = ("%time y = 2\nx = [" + "1," * 100_000 + "]\n"
              "def merge(ids, pair, idx):\n    return ids\n")
    assert not source_rules._cheap_to_tokenize(source)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text = source_rules.python_source(source)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000   # kB
    assert text.splitlines()[2] == "def merge(ids, pair, idx):"
    notebook = source_rules.Notebook([(0, "def merge(ids, pair, idx):\n    return ids\n"),
                                      (1, source)])
    assert notebook.binding("merge").cell == 1
    # a magic in such a cell is still read as IPython runs it: what it binds is seen
    costly = source.replace("%time y = 2", "%time merge = lambda ids, pair, idx: ids")
    assert [u.node.lineno for u in source_rules.Notebook([(0, costly)]).by_name["merge"]] == [1, 3]
    # an ordinary cell still goes through IPython
    assert "run_line_magic" in source_rules.python_source("%time y = 2\n")
