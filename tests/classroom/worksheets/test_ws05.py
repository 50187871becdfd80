"""Worksheet 05, special tokens and files: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import json
import pickle

import regex

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "05_special_tokens"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


def splitter(order=lambda tokens: sorted(tokens, key=len, reverse=True), escape=True,
             keep_empty=False, keep_tokens=True):
    def split_special(text, tokens):
        if not tokens:
            return [text] if text else []
        pattern = "|".join(regex.escape(t) if escape else t for t in order(tokens))
        parts = regex.split(f"({pattern})" if keep_tokens else pattern, text)
        return [p for p in parts if p or keep_empty]
    return split_special


@wrong("split_special", "not escaped")
def split_special_without_escaping(ns):
    return splitter(escape=False)


@wrong("split_special", "shorter token won")
def split_special_in_the_order_given(ns):
    return splitter(order=list)


@wrong("split_special", "empty pieces are kept", breaks="wrong")
def split_special_keeping_empty_pieces(ns):
    return splitter(keep_empty=True)


@wrong("split_special", "by their <|...|> shape")
def split_special_by_shape(ns):
    def split_special(text, tokens):
        return [p for p in regex.split(r"(<\|[^|<>]*\|>)", text) if p]
    return split_special


@wrong("split_special", [KINDS["mutated"], "line 2 of your code: tokens.sort(key=len, "
                         "reverse=True)"], breaks="contract")
def split_special_sorting_the_callers_list(ns, cell):
    return cell("def split_special(text, tokens):\n"
                "    tokens.sort(key=len, reverse=True)\n"
                "    if not tokens:\n"
                "        return [text] if text else []\n"
                "    pattern = '(' + '|'.join(regex.escape(t) for t in tokens) + ')'\n"
                "    return [p for p in regex.split(pattern, text) if p]\n",
                {"regex": regex})["split_special"]


@wrong("split_special", "special tokens themselves are missing")
def split_special_dropping_the_tokens(ns):
    return splitter(keep_tokens=False)


@wrong("split_special", KINDS["type"])
def split_special_returning_a_tuple(ns):
    right = ns["split_special"]

    def split_special(text, tokens):
        return tuple(right(text, tokens))
    return split_special


def encoder(ns, register=None, raises=True, allowed_of=None):
    """A learner's SpecialTokenizer: their register_special_tokens, whether encode raises for
    disallowed tokens, and how they read `allowed_special`."""
    base, split_special = ns["SpecialTokenizer"], ns["split_special"]

    class SpecialTokenizer(base):
        if register is not None:
            register_special_tokens = register

        def encode(self, text, allowed_special="none_raise"):
            registered = set(self.special_tokens)
            if allowed_of is not None:
                allowed = allowed_of(self, text, allowed_special)
            elif allowed_special == "all":
                allowed = registered
            elif allowed_special in ("none", "none_raise"):
                allowed = set()
            else:
                allowed = set(allowed_special)
                if allowed - registered:
                    raise ValueError(f"not registered: {sorted(allowed - registered)}")
            if raises and allowed_special != "none":
                for token in registered - allowed:
                    if token in text:
                        raise ValueError(f"text contains the special token {token!r}")
            ids = []
            for piece in split_special(text, allowed):
                ids.extend([self.special_tokens[piece]] if piece in allowed
                           else self.encode_ordinary(piece))
            return ids
    return SpecialTokenizer


@wrong("special_tokens", KINDS["lost"], breaks="state")
def register_replacing_earlier_tokens(ns):
    def register_special_tokens(self, special_tokens):
        self.special_tokens = dict(special_tokens)
        self.vocab = self._build_vocab()
    return encoder(ns, register=register_special_tokens)


@wrong("special_tokens", [KINDS["round_trip"], "unknown token id 300"], breaks="decode")
def register_without_rebuilding_the_vocab(ns):
    def register_special_tokens(self, special_tokens):
        self.special_tokens = {**self.special_tokens, **special_tokens}
    return encoder(ns, register=register_special_tokens)


@wrong("special_tokens", KINDS["no_error"], breaks="contract")
def encode_that_never_raises(ns):
    return encoder(ns, raises=False)


@wrong("special_tokens", [KINDS["exception"], "ValueError"])
def encode_raising_in_none_mode_too(ns):
    base = encoder(ns)

    class SpecialTokenizer(base):
        def encode(self, text, allowed_special="none_raise"):
            if allowed_special == "none":
                for token in self.special_tokens:
                    if token in text:
                        raise ValueError(f"text contains {token!r}")
            return base.encode(self, text, allowed_special)
    return SpecialTokenizer


@wrong("special_tokens", "whatever its shape")
def special_tokens_found_by_their_shape(ns):
    def allowed_of(self, text, allowed_special):
        found = set(regex.findall(r"<\|[^|<>]*\|>", text))
        if allowed_special == "all":
            return found
        if allowed_special in ("none", "none_raise"):
            if allowed_special == "none_raise" and found:
                raise ValueError(f"text contains the special token {sorted(found)[0]!r}")
            return set()
        unknown = set(allowed_special) - set(self.special_tokens)
        if unknown:
            raise ValueError(f"not registered: {sorted(unknown)}")
        refused = found - set(allowed_special)
        if refused:
            raise ValueError(f"text contains the special token {sorted(refused)[0]!r}")
        return set(allowed_special)
    return encoder(ns, allowed_of=allowed_of, raises=False)


@wrong("special_tokens", KINDS["no_error"], breaks="contract")
def encode_treating_a_set_as_all(ns):
    def allowed_of(self, text, allowed_special):
        if allowed_special in ("none", "none_raise"):
            return set()
        return set(self.special_tokens)
    return encoder(ns, allowed_of=allowed_of)


@wrong("special_tokens", [KINDS["no_error"], "not a registered special token"],
       breaks="contract")
def encode_ignoring_unknown_tokens_in_the_set(ns):
    def allowed_of(self, text, allowed_special):
        if allowed_special == "all":
            return set(self.special_tokens)
        if allowed_special in ("none", "none_raise"):
            return set()
        return set(allowed_special) & set(self.special_tokens)
    return encoder(ns, allowed_of=allowed_of)


@wrong("special_tokens", "longer must win")
def encode_cutting_at_each_token_in_turn(ns):
    base = encoder(ns)

    class SpecialTokenizer(base):
        def encode(self, text, allowed_special="none_raise"):
            if allowed_special != "all":
                return base.encode(self, text, allowed_special)
            pieces = [text]
            for token in self.special_tokens:           # in the order registered
                pieces = [part for piece in pieces for part in
                          ([piece] if piece in self.special_tokens else
                           [p for p in regex.split(f"({regex.escape(token)})", piece) if p])]
            return [i for p in pieces for i in ([self.special_tokens[p]] if p in
                    self.special_tokens else self.encode_ordinary(p))]
    return SpecialTokenizer


def files(ns, save=None, load=None):
    """The solution's SpecialTokenizer with a learner's save or load."""
    base = ns["SpecialTokenizer"]
    namespace = {}
    if save is not None:
        namespace["save"] = save
    if load is not None:
        namespace["load"] = load
    return type("SpecialTokenizer", (base,), namespace)


def saved(self, file_prefix):
    state = {"pattern": self.pattern, "special_tokens": self.special_tokens,
             "merges": [[a, b, idx] for (a, b), idx in self.merges.items()]}
    with open(file_prefix + ".model", "w", encoding="utf-8") as f:
        json.dump(state, f)


def state_of(model_file):
    with open(model_file, encoding="utf-8") as f:
        return json.load(f)


@wrong("save_load", KINDS["not_text"], breaks="contract")
def save_as_a_pickle(ns):
    def save(self, file_prefix):
        with open(file_prefix + ".model", "wb") as f:
            pickle.dump(self.__dict__, f)

    def load(self, model_file):
        with open(model_file, "rb") as f:
            self.__dict__.update(pickle.load(f))
    return files(ns, save, load)


@wrong("save_load", KINDS["lost"], breaks="state")
def load_without_recompiling_the_pattern(ns):
    def load(self, model_file):
        state = state_of(model_file)
        self.pattern = state["pattern"]            # the compiled pattern is still GPT-4's
        self.merges = {(a, b): idx for a, b, idx in state["merges"]}
        self.special_tokens = state["special_tokens"]
        self.vocab = self._build_vocab()
    return files(ns, saved, load)


@wrong("save_load", [KINDS["lost"], "unknown token id"], breaks="state")
def load_building_the_vocab_before_the_merges(ns):
    def load(self, model_file):
        state = state_of(model_file)
        self.pattern = state["pattern"]
        self.compiled_pattern = regex.compile(self.pattern)
        self.vocab = self._build_vocab()
        self.merges = {(a, b): idx for a, b, idx in state["merges"]}
        self.special_tokens = state["special_tokens"]
    return files(ns, saved, load)


@wrong("save_load", KINDS["lost"], breaks="state")
def save_forgetting_the_special_tokens(ns):
    def save(self, file_prefix):
        with open(file_prefix + ".model", "w", encoding="utf-8") as f:
            json.dump({"pattern": self.pattern,
                       "merges": [[a, b, i] for (a, b), i in self.merges.items()]}, f)

    def load(self, model_file):
        state = state_of(model_file)
        self.pattern = state["pattern"]
        self.compiled_pattern = regex.compile(self.pattern)
        self.merges = {(a, b): idx for a, b, idx in state["merges"]}
        self.vocab = self._build_vocab()
    return files(ns, save, load)


@wrong("save_load", KINDS["lost"], breaks="state")
def load_keeping_the_default_pattern(ns):
    def load(self, model_file):
        state = state_of(model_file)
        self.merges = {(a, b): idx for a, b, idx in state["merges"]}
        self.special_tokens = state["special_tokens"]
        self.vocab = self._build_vocab()
    return files(ns, saved, load)


@wrong("save_load", [KINDS["exception"], "FileNotFoundError", "add the suffix"])
def save_without_the_suffix(ns):
    def save(self, file_prefix):
        saved(self, file_prefix)
        import os
        os.replace(file_prefix + ".model", file_prefix)
    return files(ns, save=save)


@wrong("save_load", KINDS["lost"], breaks="state")
def load_updating_what_the_tokenizer_held(ns):
    def load(self, model_file):
        state = state_of(model_file)
        self.pattern = state["pattern"]
        self.compiled_pattern = regex.compile(self.pattern)
        self.merges.update({(a, b): idx for a, b, idx in state["merges"]})
        self.special_tokens.update(state["special_tokens"])
        self.vocab = self._build_vocab()
    return files(ns, saved, load)


# -- a message that used to name another mistake ------------------------------------------------------

@wrong("special_tokens", KINDS["error_words"], breaks="contract",
       not_says=["instead of ValueError"])
def encode_raising_without_naming_the_token(ns):
    class SpecialTokenizer(ns["SpecialTokenizer"]):
        def encode(self, text, allowed_special="none_raise"):
            if allowed_special == "none_raise" and any(t in text for t in self.special_tokens):
                raise ValueError("special tokens are not allowed here")
            return super().encode(text, allowed_special)
    return SpecialTokenizer


globals().update(wrong.tests(every_seed=["save_load"]))


# -- messages and refusals in detail --------------------------------------------------------------

def test_the_save_case_is_code_that_runs_as_pasted(ns):
    """TMP and text_file are defined by the code shown, with the imports they need."""
    message = checks.save_load(save_as_a_pickle(ns)).message
    lines = message.splitlines()
    code = [line[4:] for line in lines[1:lines.index(next(l for l in lines
                                                         if l.startswith("expected:")))]]
    assert "TMP = tempfile.mkdtemp()" in code and code[-1] == "text_file(TMP + '/mine.model')"
    names = {"SpecialTokenizer": ns["SpecialTokenizer"]}
    exec("\n".join(code[:-1]), names)
    assert eval(code[-1], names) is True


def test_a_class_that_does_not_write_the_methods_is_told_so(fails_with):
    from bpe_course import RegexTokenizer

    class Empty(RegexTokenizer):
        pass
    fails_with(checks.save_load(Empty), "`SpecialTokenizer.save` comes from the course's")


def test_save_and_load_through_super_are_refused(ns, fails_with):
    # The check cell reads the rule from the source (`source_rules`): super() of the
    # course's class reaches the course's save. (In the grader's sandbox that save is not
    # there at all.)
    from bpe_course import RegexTokenizer
    base = ns["SpecialTokenizer"]

    class SpecialTokenizer(base):
        def save(self, file_prefix):
            return super(RegexTokenizer, self).save(file_prefix)

        def load(self, model_file):
            return super(RegexTokenizer, self).load(model_file)
    fails_with(checks.save_load(SpecialTokenizer),
               "calls the course's bpe_course.base.Tokenizer.save",
               "which this exercise asks you to write yourself")


def test_encode_through_the_course_class_is_refused(ns, fails_with):
    from bpe_course import RegexTokenizer
    base = ns["SpecialTokenizer"]

    class SpecialTokenizer(base):
        def encode(self, text, allowed_special="none_raise"):
            return RegexTokenizer.encode(self, text, allowed_special)
    fails_with(checks.special_tokens(SpecialTokenizer),
               "calls the course's bpe_course.regex_tokenizer.RegexTokenizer.encode",
               "which this exercise asks you to write yourself")
    assert RegexTokenizer().encode("hi") == [104, 105]       # the course's class, untouched
