"""Checkers for the worksheets: run a learner's code on many cases, answer like a teacher.

One checker per thing a learner writes, named after it. Each takes the
learner's function or class, runs it on cases (edge cases first, see
`worksheets`), compares with the course's own version, and returns a
`Verdict`: passed with the number of cases, or the first case that failed
with its input, what was expected, what came back, and a hint. In a
notebook the verdict shows itself; failures go to stderr (a red box in
Jupyter), which is also how nbgrader knows a check cell failed.

A learner's exception is shown, never raised, so a worksheet always runs to
the end; `NotImplementedError` means "not attempted yet". What the learner's
code prints (to stdout or stderr) is captured and shown with a failure, so a
correct answer that warns still passes in nbgrader.

The worksheet's rules are read from the learner's source, as in the grader
(`source_rules`: the cells the kernel ran, and the answer's own source): an
answer that calls the course's version of the exercise, is not "by hand"
where the worksheet asks for that, or hides what it calls fails with a
message naming the call and its line.

Called without an argument (as the worksheets' check cells do, `checks.merge()`),
a checker finds the learner's function or class by its name in the notebook, so a
check cell whose function is missing (its cell not run, or stopped by a SyntaxError)
says so in one line instead of raising NameError.

>>> from bpe_course import checks
>>> def merge(ids, pair, idx):            # forgets to skip past a merged pair
...     return [idx if (a, b) == pair else a for a, b in zip(ids, ids[1:] + [None])]
>>> verdict = checks.merge(merge)
>>> verdict.passed, verdict.cases
(False, 3)
>>> print(verdict.message.splitlines()[0])
❌ merge: case 3 of 16 failed.
"""

from __future__ import annotations

import sys

from ..worksheets import CHECKERS, COMPUTE, Checker, Group
from . import runner, source_rules
from .runner import Raised
from .verdicts import Verdict, attempt, failure_message, judge, misuse, normal, source_of  # noqa: F401

# -- running a checker ------------------------------------------------------------------------

_EXPECTED: dict[tuple[str, int], list] = {}


def expected_answers(checker: Checker, index: int, group: Group) -> list:
    """The reference's answers for one group (computed once per process)."""
    key = (checker.name, index)
    if key not in _EXPECTED:
        wanted = [case.expected for case in group.cases]
        if any(w == COMPUTE for w in wanted):
            ran = [normal(a) for a, printed in runner.run_group(
                checker.target, checker.reference(), shipped(group), time_limit=600)]
            wanted = [r if w == COMPUTE else w for r, w in zip(ran, wanted)]
        _EXPECTED[key] = wanted
    return _EXPECTED[key]


def shipped(group: Group) -> dict:
    """A group as `runner` takes it (and as the grader sends it, in JSON)."""
    return {"env": group.env, "setup": group.setup, "cases": [c.code for c in group.cases],
            "time_limit": group.time_limit, "setup_time_limit": group.setup_time_limit}


def not_attempted(checker: Checker) -> Verdict:
    return Verdict(False, 1, f"⏳ {checker.name}: not attempted yet. Write `{checker.target}` "
                   f"in the cell above (replace `raise NotImplementedError()`), run that cell, "
                   f"then run this one again.", attempted=False)


class _Find:
    """The default of every checker's argument: find the learner's object by name."""

    def __repr__(self) -> str:
        return "the learner's object, found by its name"


FIND = _Find()


def _found(checker: Checker, frame) -> object:
    """The learner's object named `checker.target` where the checker was called, or FIND."""
    if frame is None:
        return FIND
    names = {**frame.f_globals, **frame.f_locals}
    return names.get(checker.target, FIND)


def check(name: str, target=FIND, hidden: bool = False, time_limit: float = 30.0,
          frame=None) -> Verdict:
    """Run checker `name` on the learner's `target`; `hidden=True` adds the grader's cases.

    Without `target`, the learner's object is looked up by its name in `frame` (the
    notebook's names, where a check cell calls the checker). Each case may take
    `time_limit` seconds (some groups allow more, such as loading GPT-4's 100,000 merges).
    """
    checker = CHECKERS[name]
    if target is FIND:
        target = _found(checker, frame or sys._getframe(1))
    if target is FIND:
        return Verdict(False, 0, f"❌ {name}: {misuse(checker, {'missing': True})}")
    problem = misuse(checker, runner.describe(target, checker.own))
    if problem:
        return Verdict(False, 0, f"❌ {name}: {problem}")
    groups = [(i, g) for i, g in enumerate(checker.groups()) if hidden or not g.hidden]
    total = sum(len(g.cases) for i, g in groups)
    wanted = {index: expected_answers(checker, index, group) for index, group in groups}
    broken, cells = source_rules.in_kernel(name, target)
    if broken:
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        return Verdict(False, 0, f"❌ {name}: {broken[0].text(cells)}{more}")
    outcome = _run_cases(checker, target, groups, wanted, total, time_limit)
    if isinstance(outcome, Verdict):
        return outcome
    number, group, case, expected, got, problem, printed = outcome
    source, line = source_of(target)
    return Verdict(False, number, failure_message(
        checker, group, case, number, total, problem, got, printed, source=source, line=line,
        expected=expected))


def naive_seconds(text: str, vocab_size: int) -> float:
    """The course's naive trainer's time on `text` (for the speed case)."""
    from ...regex_tokenizer import RegexTokenizer
    return runner.seconds(lambda: RegexTokenizer().train(text, vocab_size))


def _run_cases(checker: Checker, target, groups, wanted, total, time_limit):
    """A passing Verdict (or "not attempted yet"), or what the first failing case needs for
    its message: (number, group, case, expected, got, problem, printed)."""
    number = 0
    for index, group in groups:
        answers = runner.run_group(checker.target, target, shipped(group), time_limit,
                                   extra={"naive_seconds": naive_seconds})
        for case, expected, (got, printed) in zip(group.cases, wanted[index], answers):
            number += 1
            got = normal(got)
            problem = judge(case, expected, got)
            if problem is None:
                continue
            if isinstance(got, Raised) and got.not_attempted and number == 1:
                return not_attempted(checker)
            return number, group, case, expected, got, problem, printed
    return Verdict(True, number, f"✅ {checker.name}: passed all {number} cases.")


# -- one checker per thing a learner writes ------------------------------------------------------

def utf8_bytes(fn=FIND) -> Verdict:
    """Worksheet 01: `fn(text) -> list[int]`, the UTF-8 bytes of `text`."""
    return check("utf8_bytes", fn, frame=sys._getframe(1))


def code_points_and_bytes(fn=FIND) -> Verdict:
    """Worksheet 01: `fn(text) -> (number of code points, number of UTF-8 bytes)`."""
    return check("code_points_and_bytes", fn, frame=sys._getframe(1))


def encode_code_point(fn=FIND) -> Verdict:
    """Worksheet 01: `fn(cp) -> list[int]`, UTF-8 by hand; ValueError for surrogates."""
    return check("encode_code_point", fn, frame=sys._getframe(1))


def safe_decode(fn=FIND) -> Verdict:
    """Worksheet 01: `fn(byte_list) -> str`, decoding UTF-8 with U+FFFD for broken bytes."""
    return check("safe_decode", fn, frame=sys._getframe(1))


def get_stats(fn=FIND) -> Verdict:
    """Worksheet 02: `fn(ids, counts=None) -> {pair: count}`, adding to `counts` if given."""
    return check("get_stats", fn, frame=sys._getframe(1))


def merge(fn=FIND) -> Verdict:
    """Worksheet 02: `fn(ids, pair, idx) -> list[int]`, every `pair` replaced by `idx`."""
    return check("merge", fn, frame=sys._getframe(1))


def encode_bytes(fn=FIND) -> Verdict:
    """Worksheet 02: `fn(text, merges) -> list[bytes]`, merges given as a ranked list of byte pairs."""
    return check("encode_bytes", fn, frame=sys._getframe(1))


def basic_tokenizer(cls=FIND) -> Verdict:
    """Worksheet 02: a `BasicTokenizer` class with `train`, `encode`, `decode`, `merges`, `vocab`."""
    return check("basic_tokenizer", cls, frame=sys._getframe(1))


def chunked_stats(fn=FIND) -> Verdict:
    """Worksheet 04: `fn(chunks) -> {pair: count}`, pairs counted inside each chunk only."""
    return check("chunked_stats", fn, frame=sys._getframe(1))


def regex_tokenizer(cls=FIND) -> Verdict:
    """Worksheet 04: a `RegexTokenizer(pattern=None)` class that trains and encodes by chunks."""
    return check("regex_tokenizer", cls, frame=sys._getframe(1))


def split_special(fn=FIND) -> Verdict:
    """Worksheet 05: `fn(text, tokens) -> list[str]`, text cut around special tokens."""
    return check("split_special", fn, frame=sys._getframe(1))


def special_tokens(cls=FIND) -> Verdict:
    """Worksheet 05: `register_special_tokens` and every `allowed_special` mode of `encode`."""
    return check("special_tokens", cls, frame=sys._getframe(1))


def save_load(cls=FIND) -> Verdict:
    """Worksheet 05: `save(prefix)` writes plain text that `load(prefix + ".model")` restores."""
    return check("save_load", cls, frame=sys._getframe(1))


def recover_merges(fn=FIND) -> Verdict:
    """Worksheet 06: `fn(ranks) -> {(left rank, right rank): rank}` from tiktoken's ranks."""
    return check("recover_merges", fn, frame=sys._getframe(1))


def gpt4_tokenizer(cls=FIND) -> Verdict:
    """Worksheet 06: `cls(encoding_name)` encodes and decodes exactly like tiktoken."""
    return check("gpt4_tokenizer", cls, frame=sys._getframe(1))


def count_pretokens(fn=FIND) -> Verdict:
    """Worksheet 07: `fn(text, special_tokens=(), pattern=...) -> {pre-token: count}`."""
    return check("count_pretokens", fn, frame=sys._getframe(1))


def merge_words(fn=FIND) -> Verdict:
    """Worksheet 07: `fn(words, stats, pair) -> new words`, with `stats` updated in place."""
    return check("merge_words", fn, frame=sys._getframe(1))


def train_bpe(fn=FIND) -> Verdict:
    """Worksheet 07: `fn(text, vocab_size, special_tokens=(), pattern=...) -> (vocab, merges)`,
    the naive trainer's merges, at least 10x faster."""
    return check("train_bpe", fn, frame=sys._getframe(1))


def bytes_to_unicode(fn=FIND) -> Verdict:
    """Worksheet 08: `fn() -> {byte: char}`, GPT-2's byte map, printable bytes first."""
    return check("bytes_to_unicode", fn, frame=sys._getframe(1))


def read_vocab_merges(fn=FIND) -> Verdict:
    """Worksheet 08: `fn(vocab_path, merges_path) -> (vocab, merges)`, tokens as bytes."""
    return check("read_vocab_merges", fn, frame=sys._getframe(1))


def write_vocab_merges(fn=FIND) -> Verdict:
    """Worksheet 08: `fn(vocab, merges, folder)` writes `vocab.json` and `merges.txt`."""
    return check("write_vocab_merges", fn, frame=sys._getframe(1))


def tokens_per_byte(fn=FIND) -> Verdict:
    """Worksheet 09: `fn(text, encoding) -> float`, tiktoken tokens per UTF-8 byte."""
    return check("tokens_per_byte", fn, frame=sys._getframe(1))


def whitespace_pretokens(fn=FIND) -> Verdict:
    """Worksheet 09: `fn(text, pattern) -> int`, the pre-tokens made only of whitespace."""
    return check("whitespace_pretokens", fn, frame=sys._getframe(1))


def glitch_candidates(fn=FIND) -> Verdict:
    """Worksheet 09: `fn(tok, text) -> list[int]`, learned ids that encoding `text` never uses."""
    return check("glitch_candidates", fn, frame=sys._getframe(1))


def bytes_per_token(fn=FIND) -> Verdict:
    """Worksheet 17: `fn(tok, docs) -> float`, UTF-8 bytes per token pooled over the documents."""
    return check("bytes_per_token", fn, frame=sys._getframe(1))


def lab_train_bpe(fn=FIND) -> Verdict:
    """Worksheet 17: the learner's `train_bpe` on a slice of the lab's corpus: the reference's
    merges, held-out compression, and the speed budget."""
    return check("lab_train_bpe", fn, frame=sys._getframe(1))


def spm_normalize(fn=FIND) -> Verdict:
    """Worksheet 11: `fn(text, add_dummy_prefix=True) -> str`, spaces as ▁ and the dummy prefix."""
    return check("spm_normalize", fn, frame=sys._getframe(1))


def spm_encode(fn=FIND) -> Verdict:
    """Worksheet 11: `fn(model, text) -> list[int]`, SentencePiece's BPE with byte fallback."""
    return check("spm_encode", fn, frame=sys._getframe(1))


def viterbi(fn=FIND) -> Verdict:
    """Worksheet 12: `fn(text, scores) -> (pieces, total)`, a Unigram model's best segmentation."""
    return check("viterbi", fn, frame=sys._getframe(1))


def wordpiece(fn=FIND) -> Verdict:
    """Worksheet 12: `fn(word, vocab, max_input_chars_per_word=100) -> pieces`, WordPiece's
    greedy longest match with '##' and '[UNK]'."""
    return check("wordpiece", fn, frame=sys._getframe(1))


def bert_normalize(fn=FIND) -> Verdict:
    """Worksheet 12: `fn(text, lowercase=True) -> str`, BERT's normalizer."""
    return check("bert_normalize", fn, frame=sys._getframe(1))


def align_labels(fn=FIND) -> Verdict:
    """Worksheet 14: `fn(word_ids, word_labels) -> list[int]`, one label per token, -100 for
    continuation and special tokens."""
    return check("align_labels", fn, frame=sys._getframe(1))


def entity_spans(fn=FIND) -> Verdict:
    """Worksheet 14: `fn(labels, word_ids, offsets) -> [(type, start, end)]`, a model's token
    labels back to entities in the text."""
    return check("entity_spans", fn, frame=sys._getframe(1))


def pad_batch(fn=FIND) -> Verdict:
    """Worksheet 14: `fn(features, pad_id, side="right") -> dict`, a padding collator with
    the attention mask, labels padded with -100."""
    return check("pad_batch", fn, frame=sys._getframe(1))
