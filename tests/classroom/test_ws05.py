"""Worksheet 05, special tokens and files: its solution passes, each mistake is caught.

Each wrong version changes one thing of the worksheet's solution, the way learners
do, and its test asserts both that the check fails and that the message points at
that mistake, not at another one. A mistake that is wrong on real text must also keep
less than half of the exercise's points when the grader scores it (`kept`, on a few
seeds of hidden cases). Checks run with the course's own code off limits, as in a
worksheet; the few wrong answers built from the course's own right one lift that lock
(`unlocked`).
"""

import json
import pickle

import pytest

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "05_special_tokens"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_split_special_without_escaping_is_caught(fails_with):
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text] if text else []
        return [p for p in regex.split("(" + "|".join(tokens) + ")", text) if p]
    fails_with(checks.split_special(split_special), "escape")


def test_split_special_without_longest_first_is_caught(fails_with):
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text] if text else []
        pattern = "(" + "|".join(regex.escape(t) for t in sorted(tokens)) + ")"
        return [p for p in regex.split(pattern, text) if p]
    fails_with(checks.split_special(split_special), "a<|end|><|end|>b", "longer must win")


def test_split_special_keeping_empty_pieces_is_caught(fails_with):
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text]
        pattern = "(" + "|".join(regex.escape(t) for t in sorted(tokens, key=len)[::-1]) + ")"
        return regex.split(pattern, text)
    fails_with(checks.split_special(split_special), "Empty text has no pieces")


def test_encode_that_never_raises_for_disallowed_special_tokens_is_caught(ns, fails_with):
    class Wrong(ns["SpecialTokenizer"]):
        def encode(self, text, allowed_special="none_raise"):
            if allowed_special in ("none", "none_raise"):
                return self.encode_ordinary(text)
            return super().encode(text, "all")
    fails_with(checks.special_tokens(Wrong), "tok.encode('hello<|endoftext|>world')",
               "expected: raises ValueError naming '<|endoftext|>'", "(no exception)",
               "none_raise")


def test_special_ids_unknown_to_decode_are_caught(ns, fails_with):
    class Wrong(ns["SpecialTokenizer"]):
        def register_special_tokens(self, special_tokens):
            self.special_tokens = {**self.special_tokens, **special_tokens}   # vocab not rebuilt
    fails_with(checks.special_tokens(Wrong), "tok.decode(", "decode must know the special ids")


def test_load_that_forgets_to_recompile_the_pattern_is_caught(ns, fails_with):
    class Wrong(ns["SpecialTokenizer"]):
        def load(self, model_file):
            with open(model_file, encoding="utf-8") as f:
                state = json.load(f)
            self.pattern = state["pattern"]        # the compiled pattern is still GPT-4's
            self.merges = {(a, b): idx for a, b, idx in state["merges"]}
            self.special_tokens = state["special_tokens"]
            self.vocab = self._build_vocab()
    fails_with(checks.save_load(Wrong), "tok2.encode(", "recompile")


def test_saving_a_pickle_is_caught(ns, fails_with):
    class Wrong(ns["SpecialTokenizer"]):
        def save(self, file_prefix):
            with open(file_prefix + ".model", "wb") as f:
                pickle.dump(self.__dict__, f)

        def load(self, model_file):
            with open(model_file, "rb") as f:
                self.__dict__.update(pickle.load(f))
    fails_with(checks.save_load(Wrong), "text_file(TMP + '/mine.model')", "never a pickle")


def test_a_class_that_does_not_write_the_methods_is_told_so(fails_with):
    from bpe_course import RegexTokenizer

    class Empty(RegexTokenizer):
        pass
    fails_with(checks.save_load(Empty), "`SpecialTokenizer.save` comes from the course's")


def test_save_and_load_through_super_are_refused(ns, fails_with):
    base = ns["SpecialTokenizer"]

    class SpecialTokenizer(base):
        def save(self, file_prefix):
            return super(base, self).save(file_prefix)

        def load(self, model_file):
            return super(base, self).load(model_file)
    fails_with(checks.save_load(SpecialTokenizer), "OffLimits",
               "the course's bpe_course.base.Tokenizer.save is off limits",
               "this exercise is to write it yourself")


def test_encode_through_super_is_refused(ns, fails_with):
    base = ns["SpecialTokenizer"]

    class SpecialTokenizer(base):
        def encode(self, text, allowed_special="none_raise"):
            return super(base, self).encode(text, allowed_special)
    fails_with(checks.special_tokens(SpecialTokenizer), "RegexTokenizer.encode is off limits",
               "this exercise is to write it yourself")
    # the course's classes are whole again afterwards
    from bpe_course import RegexTokenizer
    assert RegexTokenizer().encode("hi") == [104, 105]


def test_a_set_naming_an_unregistered_token_must_raise(ns, fails_with):
    base = ns["SpecialTokenizer"]

    class SpecialTokenizer(base):
        def encode(self, text, allowed_special="none_raise"):
            if not isinstance(allowed_special, str):
                allowed_special = set(allowed_special) & set(self.special_tokens)
            return base.encode(self, text, allowed_special)
    fails_with(checks.special_tokens(SpecialTokenizer), "allowed_special={'<|x|>'}",
               "not a registered special token")


def test_a_load_that_does_not_recompile_the_pattern_keeps_little(ns, kept):
    """Wrong whenever the saved pattern is not the default: the hidden round trips use others."""
    class SpecialTokenizer(ns["SpecialTokenizer"]):
        def load(self, model_file):
            with open(model_file, encoding="utf-8") as f:
                state = json.load(f)
            self.pattern = state["pattern"]        # the compiled pattern is still GPT-4's
            self.merges = {(a, b): idx for a, b, idx in state["merges"]}
            self.special_tokens = state["special_tokens"]
            self.vocab = self._build_vocab()
    assert max(kept("save_load", SpecialTokenizer)) < 0.5


def test_a_pickle_keeps_little(ns, kept):
    """A pickle round trip is exact, but the hidden round trips never load a file that is not
    text: loading a pickle runs whatever code it holds."""
    class SpecialTokenizer(ns["SpecialTokenizer"]):
        def save(self, file_prefix):
            with open(file_prefix + ".model", "wb") as f:
                pickle.dump(self.__dict__, f)

        def load(self, model_file):
            with open(model_file, "rb") as f:
                self.__dict__.update(pickle.load(f))
    assert max(kept("save_load", SpecialTokenizer)) < 0.5


def test_the_solution_keeps_every_point_on_every_seed(ns, kept):
    assert set(kept("save_load", ns["SpecialTokenizer"])) == {1.0}
