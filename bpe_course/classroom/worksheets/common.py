"""What a worksheet is made of: exercises, the cases behind each checker, and what they share.

A `Worksheet` is one notebook's record: its exercises and their points, a
`Checker` for each, the course code each answer may use, and the hidden
cases the grader draws. A `Checker` names the learner's function or class
as the worksheet names it, the course's own version of it (the *reference*,
which gives the expected answers), and groups of cases, edge cases first. A
case is a line of Python run with the learner's object bound to that name
(see `checking.runner`), so the failing case a learner is shown is also code
they can paste and run.

Groups marked `hidden` are not run by the worksheets' check cells, only by
the grader, so a solution cannot be fitted to the cases a learner has seen.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Callable

from ...patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN  # noqa: F401 (for the worksheets' cases)

EOT = "<|endoftext|>"
# Course code every exercise may use: the texts, the patterns, pictures, input checks.
ALWAYS = ("bpe_course.corpora", "bpe_course.patterns", "bpe_course.viz",
          "bpe_course.text.check_text", "bpe_course.text.check_vocab_size",
          "bpe_course.text.fix_surrogates")
COMPUTE = "compute"   # a case's expected answer comes from running the reference
# The weight of a case on real text (a page of prose or code, a tokenizer trained on one):
# the grader counts it as this many small cases (see `grading.scoring.score_exercise`).
REAL = 20

# What a failed case breaks, and the most an exercise keeps when one such case fails: the
# grader multiplies the share of cases passed by the lowest of these among the failed cases
# (see `grading.scoring.score_exercise`). A case that runs out of time counts as "hangs"
# whatever it checks. The words are those of the grader's report and exercises/README.md.
BREAKS = {
    "wrong": (0.3, "gives wrong results on ordinary input"),
    "decode": (0.3, "does not decode what it encodes"),
    "state": (0.3, "loses or shares state"),
    "hangs": (0.3, "never stops"),
    "slow": (0.5, "is not as fast as the worksheet asks"),
    "contract": (0.6, "breaks a rule the worksheet states"),
    "edge": (1.0, "fails an edge case"),
    # Rules read from the source (`checking.source_rules`), not from a case:
    "course": (0.0, "calls the course's own code where the worksheet asks for yours"),
    "hidden": (0.0, "hides what it calls (exec, eval, a computed getattr, ...)"),
}
WRONG, DECODE, STATE, CONTRACT, EDGE = "wrong", "decode", "state", "contract", "edge"
# What a failed case breaks when its kind says it, whatever the worksheet: the README's
# table, applied the same everywhere (a test walks every case against it, `table_breaks`).
# A result that is the input itself shares state with the caller's input, as one dict
# returned by every call shares it between calls: both are "state".
PROBE_BREAKS = {"unchanged": CONTRACT, "attr": CONTRACT, "by_hand": CONTRACT, "text": CONTRACT,
                "new": STATE, "fresh": STATE, "lost": STATE, "round_trip": DECODE}


def table_breaks(case) -> str | None:
    """What the cap table says a failure of `case` breaks, when its probe or its expected
    answer says it (an exception the worksheet asks for is a stated rule: raising the wrong
    one, or none, breaks it), else None (the case's own `breaks` stands).

    >>> table_breaks(Case("f([1])", probe="unchanged:0")), table_breaks(Case("f([1])"))
    ('contract', None)
    """
    from ..checking.plain import Raised
    if case.probe:
        return PROBE_BREAKS.get(case.probe.partition(":")[0])
    if isinstance(case.expected, Raised):
        return CONTRACT
    return None


@dataclass
class Case:
    code: str                      # run with the learner's object bound to its name
    hint: str = ""                 # shown when this case fails and nothing more precise is known
    expected: object = COMPUTE     # or a fixed value (with judge="at_least": a minimum)
    judge: str = "equal"           # "equal" or "at_least"
    mention: str = ""              # an expected exception's message must contain this
    weight: int = 1                # the grader's share: a case on real text counts more
    tokens: dict | None = None     # {id: bytes}: show merges of ids (ranks) as these bytes
    breaks: str = EDGE             # what a failure breaks: a key of BREAKS
    # What the case probes besides its value, which names the mistake when it fails (see
    # `checking.diagnosis`): "unchanged:K" (the answer is (result, argument K afterwards)),
    # "new:K" (the answer is (result is not argument K, result): a new object is asked),
    # "fresh" (a second instance, or a second call, must not see the first's state),
    # "attr:NAME" (the answer is an attribute the constructor must set), or one of the
    # worksheet's own (`Worksheet.probes`): "lost" (state that must survive save/load or
    # another registration), "round_trip" (decode(encode(text)) must give text back),
    # "text" (a file must be text), "by_hand" (a function the worksheet forbids must not
    # be called).
    probe: str = ""
    # Hints keyed by what came back: a diagnosis kind ("type", "raised:KeyError", ...)
    # or the answer's repr; the first that matches replaces `hint`. `hint` itself says what
    # the case checks and names no mistake (it is shown when no kind is recognised, so it
    # must not guess one): the words for one mistake go here, under its kind.
    when: dict = field(default_factory=dict)


@dataclass
class Group:
    cases: list[Case]
    setup: str = ""                # run once, before the cases, in the same namespace
    env: dict = field(default_factory=dict)      # named inputs
    env_doc: dict = field(default_factory=dict)  # how a learner can make each input
    hidden: bool = False           # only the grader runs it
    time_limit: float | None = None
    setup_time_limit: float | None = None


@dataclass
class Checker:
    name: str                      # the checker, e.g. "merge"
    target: str                    # the learner's function or class, as named in the worksheet
    kind: str                      # "function" or "class"
    reference: Callable[[], object]
    groups: Callable[[], list[Group]]   # built once, on first use (some read corpora)
    own: tuple[str, ...] = ()      # methods the learner must write, not inherit from the course
    allowed_bases: tuple[str, ...] = ()   # course classes the learner's class may inherit from
    # Recognises a mistake from what came back: `recognize(inputs, expected, got)` with the
    # case's inputs (see `checking.diagnosis.inputs_of`) returns (kind, sentence) or None.
    recognize: Callable[[dict, object, object], tuple[str, str] | None] | None = None
    # Set from the checker's `Worksheet` (its `helpers`, `forbidden`, `hidden`, `probes`):
    helpers: tuple[str, ...] = field(default=(), init=False)
    forbidden: tuple[str, ...] = field(default=(), init=False)
    hidden: Callable[[random.Random], list[Group]] | None = field(default=None, init=False)
    probes: dict = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.groups = functools.lru_cache(maxsize=None)(self.groups)

    def course_rules(self) -> tuple[list[str], list[str]]:
        """(allowed, denied) course names for the answer (see `checking.source_rules`): the
        helpers, the allowed base classes without the methods the learner must write (their
        `__init__` stays usable), and the forbidden course names."""
        allowed = [*ALWAYS, *self.helpers, *self.allowed_bases,
                   *(name for base in self.allowed_bases for name in BASE_NEEDS.get(base, ()))]
        denied = [f"{base}.{method}" for base in self.allowed_bases for method in self.own
                  if method != "__init__"] + [f for f in self.forbidden
                                              if f.startswith("bpe_course.")]
        return allowed, denied


@dataclass
class Worksheet:
    """One worksheet, as the checkers, the grader and the exercise generator know it.

    - `name`: the notebook's, `solutions/NAME.ipynb` and `exercises/NAME.ipynb`;
    - `points`: each exercise's points, in the worksheet's order; an exercise is named
      by its checker (also its check cell's nbgrader `grade_id`);
    - `checkers`: one per exercise, with the cases the worksheet shows and fixed hidden ones;
    - `helpers`: by exercise, the course code its answer may use (dotted names: a module,
      class, function or method; statements at cell level may use any exercise's helpers);
      everything else of the course is off limits, and so is what `forbidden` names: course
      code, or what "by hand" excludes (`worksheets.ws01.BY_HAND_UTF8`). The grader
      reads these rules from the notebook's source (`checking.source_rules`);
    - `answers`: the course's own solutions of the exercises (dotted names: a module, a
      function, a class or a method), which the sandbox's copy of the course ships as
      stubs that raise ImportError (`grading.bubblewrap.strip_answers`); the grader's
      references (`REFERENCES`) never ship;
    - `hidden`: by exercise, the hidden cases drawn afresh for each grading run,
      `rng -> groups` (see `groups_for`);
    - `naive_timings`: the (text, vocab size) on which the grader's driver times the
      course's naive trainer before any learner code runs, for a speed case;
    - `memory`: a memory budget in bytes for all the notebook's processes together while
      it is graded, below the grader's own limit (None: the grader's limit); the grader
      stops a notebook that holds more (see `grading.run_notebook.memory_budget`).
    - `probes`: what this worksheet's own probes say (`Case.probe`, the name before any
      colon): `probe(expected, got) -> (kind, words)` or `(kind, words, final)`, or None
      when the answer shows no such mistake (see `checking.diagnosis`).

    Each checker gets its helpers, forbidden names and hidden cases from here.

    >>> sheet = Worksheet("00_demo", {"f": 1}, [Checker("f", "f", "function", list, list)],
    ...                   helpers={"f": ("bpe_course.pairs",)})
    >>> sheet.checkers[0].helpers
    ('bpe_course.pairs',)
    >>> Worksheet("00_demo", {"g": 1}, [Checker("f", "f", "function", list, list)])
    Traceback (most recent call last):
        ...
    ValueError: worksheet 00_demo: points must name its checkers ['f'] in order, not ['g']
    """
    name: str
    points: dict[str, int]
    checkers: list[Checker]
    helpers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    forbidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    answers: tuple[str, ...] = ()
    hidden: dict[str, Callable[[random.Random], list[Group]]] = field(default_factory=dict)
    naive_timings: Callable[[], list[tuple[str, int]]] = list
    memory: int | None = None
    probes: dict[str, Callable[[object, object], tuple | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [c.name for c in self.checkers]
        if list(self.points) != names:
            raise ValueError(f"worksheet {self.name}: points must name its checkers {names} "
                             f"in order, not {list(self.points)}")
        for what, table in (("helpers", self.helpers), ("forbidden", self.forbidden),
                            ("hidden", self.hidden)):
            unknown = sorted(set(table) - set(names))
            if unknown:
                raise ValueError(f"worksheet {self.name}: {what} names {unknown}, which are "
                                 f"not among its checkers {names}")
        for checker in self.checkers:
            checker.helpers = tuple(self.helpers.get(checker.name, ()))
            checker.forbidden = tuple(self.forbidden.get(checker.name, ()))
            checker.hidden = self.hidden.get(checker.name)
            checker.probes = dict(self.probes)

    def not_shipped(self) -> tuple[str, ...]:
        """What the sandbox's copy of the course leaves out: the answers and the references."""
        return (REFERENCES, *self.answers)


# -- inputs ------------------------------------------------------------------------

def prose(start: int, stop: int) -> tuple[str, str]:
    from ...corpora import prose as corpus
    return corpus()[start:stop], f"bpe_course.corpora.prose()[{start}:{stop}]"


def code(stop: int, start: int = 0) -> tuple[str, str]:
    from ...corpora import python_code
    return (python_code(200_000)[start:stop],
            f"bpe_course.corpora.python_code()[{start or ''}:{stop}]")


HARD_TEXTS = [
    "hello world", "  leading and trailing  ", "\n\n\ttabs\t and\r\nCRLF \n",
    "I'm you're he'll we'd I'VE", "It’s curly: don’t", "1 12 123 1234 12345 3.14 -42",
    "naïve café Ångström", "e\u0301 a\u0308", "Привет, мир!", "مرحبا بالعالم", "नमस्ते",
    "안녕하세요", "こんにちは世界", "你好，世界。", "👋🌍 👩‍👩‍👧‍👦 👍🏽", "\u200b\u200d\ufeff",
    "def f(x):\n    return x ** 2\n", "<|endoftext", "!!!???...", "    \n    \n",
    "https://example.com/a?b=c&d=e", "\x00\x01\x7f",
]


def random_texts(seed: int, n: int) -> list[str]:
    """Texts no worksheet shows: random runs of letters, digits, spaces and other scripts."""
    rng = random.Random(seed)
    pool = ("abcdefghijklmnopqrstuvwxyzABC    0123456789.,;:!?'\"()\n\t-_éüñçß"
            "абвгдежзαβγδ日本語中文한국어🙂👍🏽\u0301\u200d")
    return ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 60))) for _ in range(n)]


def escaped(x) -> str:
    """`repr(x)` with the characters that mislead on screen written as escapes.

    A combining mark joins the character before it ('e\\u0301' shows as 'é'),
    and format or odd space characters are invisible: both print as `\\uXXXX`.

    >>> print(escaped(["e\u0301", "a\u200bb", "é"]))
    ['e\\u0301', 'a\\u200bb', 'é']
    """
    import unicodedata
    text = repr(x)
    if text.isascii():
        return text
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        misleads = category[0] in "MC" or category in ("Zl", "Zp") or (
            category == "Zs" and ch != " ")
        out.append(ch if ch.isascii() or not misleads else
                   f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
    return "".join(out)


def outcome(expected, got, limit: int = 100) -> str:
    """What came back instead of `expected`, in a few words (for a worksheet's probes)."""
    from ..checking.plain import Raised
    if isinstance(got, Raised):
        return f"it raised {got.type_name}: {got.message[:limit]}"
    return f"it gave {escaped(got)[:limit]} instead of {escaped(expected)[:limit]}"


def calls(name: str, args_list, hint: str = "") -> list[Case]:
    return [Case(f"{name}({', '.join(map(escaped, args))})", hint) for args in args_list]


# -- references -------------------------------------------------------------------

def course_ref(path: str):
    """A lazy reference: 'bpe_course.pairs.merge' -> that object, imported on use."""
    def load():
        import importlib
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)
    return load


REFERENCES = "bpe_course.classroom.checking.references"
REF = REFERENCES + "."   # the references of checkers that are not story functions
TOKENIZER = "bpe_course.base.Tokenizer"
REGEX = "bpe_course.regex_tokenizer.RegexTokenizer"
# What an allowed base class cannot work without: RegexTokenizer's __init__ makes the
# cache of encoded chunks, a class of its own.
BASE_NEEDS = {REGEX: ("bpe_course.regex_tokenizer.ChunkCache",)}


# -- hidden cases drawn per grading run -------------------------------------------------

def unchanged(name: str, args: tuple, keep: int, hint: str, params: tuple = ()) -> Case:
    """Call `name(*args)`; the answer is the result and argument `keep` afterwards: a
    function that changes its input (where the worksheet asks for a new value) fails.
    `params` names the arguments as the worksheet does (`ids`, `tokens`, ...)."""
    names = list(params) or [f"arg{i}" for i in range(len(args))]
    lines = [f"{n} = {escaped(a)}" for n, a in zip(names, args)]
    lines += [f"result = {name}({', '.join(names)})", f"(result, {names[keep]})"]
    return Case("\n".join(lines), hint, breaks=CONTRACT, probe=f"unchanged:{keep}")


def new_object(name: str, args: tuple, keep: int, hint: str, params: tuple = ()) -> Case:
    """Call `name(*args)`; the answer is (whether the result is a new object, not argument
    `keep` itself, and the result): a function that hands its input back where the worksheet
    asks for a new value fails, even when the value is right."""
    names = list(params) or [f"arg{i}" for i in range(len(args))]
    lines = [f"{n} = {escaped(a)}" for n, a in zip(names, args)]
    lines += [f"result = {name}({', '.join(names)})", f"(result is not {names[keep]}, result)"]
    return Case("\n".join(lines), hint, breaks=STATE, probe=f"new:{keep}")


def random_ids(rng: random.Random, low: int = 0, high: int = 6, size: int = 40) -> list[int]:
    """A short list of small ids, so that pairs repeat and overlap."""
    return [rng.randrange(low, high) for _ in range(rng.randrange(0, size))]


def random_prose(rng: random.Random, size: int) -> tuple[str, str]:
    """A slice of the prose corpus at a random place, and how to make it."""
    from ...corpora import prose as corpus
    start = rng.randrange(0, max(1, len(corpus()) - size))
    return prose(start, start + size)


def random_code(rng: random.Random, size: int) -> tuple[str, str]:
    """A slice of the Python code corpus at a random place, and how to make it."""
    from ...corpora import python_code
    start = rng.randrange(0, len(python_code(200_000)) - size)
    return code(start + size, start)


def training_pages(rng: random.Random) -> dict[str, tuple[str, str]]:
    """Real text for a tokenizer, as {name: (text, how to make it)}: TEXT, a page of prose
    and a page of code joined, to train on; PROSE and CODE, the pages that follow each, to
    encode (text like the training text, as a tokenizer meets in use)."""
    from ...corpora import prose as corpus
    from ...corpora import python_code
    start, size = rng.randrange(0, len(corpus()) - 4000), rng.randrange(800, 1200)
    at, length = rng.randrange(0, len(python_code(200_000)) - 5000), rng.randrange(1300, 1700)
    (page, doc), (code_page, code_doc) = prose(start, start + size), code(at + length, at)
    return {"TEXT": (page + "\n\n" + code_page, f"{doc} + '\\n\\n' + {code_doc}"),
            "PROSE": prose(start + size, start + size + 2500),
            "CODE": code(at + length + 2500, at + length)}


def world_page(rng: random.Random) -> tuple[str, str]:
    """A page of real text in many scripts: the course's SAMPLES (a sentence in each of a
    dozen languages, emoji, code) in a random order, then a slice of prose; and how to make it."""
    from ...corpora import SAMPLES
    names = rng.sample(sorted(SAMPLES), len(SAMPLES))
    text, doc = random_prose(rng, rng.randrange(300, 800))
    return ("\n".join(SAMPLES[n] for n in names) + "\n" + text,
            f"'\\n'.join(bpe_course.corpora.SAMPLES[k] for k in {names!r}) + '\\n' + {doc}")
