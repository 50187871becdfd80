"""Worksheet 04, regex pre-tokenization: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import re as stdlib_re

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "04_regex_tokenizer"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


@wrong("chunked_stats", "counts pairs across chunks")
def chunked_stats_over_the_joined_chunks(ns):
    get_stats = ns["get_stats"]

    def chunked_stats(chunks):
        return get_stats([i for chunk in chunks for i in chunk])
    return chunked_stats


@wrong("chunked_stats", "once per chunk")
def chunked_stats_over_sets_of_pairs(ns):
    def chunked_stats(chunks):
        counts = {}
        for chunk in chunks:
            for pair in set(zip(chunk, chunk[1:])):
                counts[pair] = counts.get(pair, 0) + 1
        return counts
    return chunked_stats


@wrong("chunked_stats", "dict.update replaces counts")
def chunked_stats_with_update(ns):
    get_stats = ns["get_stats"]

    def chunked_stats(chunks):
        counts = {}
        for chunk in chunks:
            counts.update(get_stats(chunk))
        return counts
    return chunked_stats


@wrong("chunked_stats", "only the last chunk")
def chunked_stats_keeping_the_last_chunk(ns):
    get_stats = ns["get_stats"]

    def chunked_stats(chunks):
        counts = {}
        for chunk in chunks:
            counts = get_stats(chunk)
        return counts
    return chunked_stats


@wrong("chunked_stats", [KINDS["shared"], "line 1 of your code: def chunked_stats(chunks, "
                         "counts={}):"], breaks="state")
def chunked_stats_with_a_mutable_default(ns, cell):
    return cell("def chunked_stats(chunks, counts={}):\n"
                "    for chunk in chunks:\n"
                "        get_stats(chunk, counts)\n"
                "    return counts\n", ns)["chunked_stats"]


@wrong("chunked_stats", [KINDS["mutated"], "line 4 of your code: chunk = chunks.pop()"],
       breaks="contract")
def chunked_stats_popping_the_chunks(ns, cell):
    return cell("def chunked_stats(chunks):\n"
                "    counts = {}\n"
                "    while chunks:\n"
                "        chunk = chunks.pop()\n"
                "        get_stats(chunk, counts)\n"
                "    return counts\n", ns)["chunked_stats"]


@wrong("chunked_stats", KINDS["type"])
def chunked_stats_sorted_by_count(ns):
    get_stats = ns["get_stats"]

    def chunked_stats(chunks):
        counts = {}
        for chunk in chunks:
            get_stats(chunk, counts)
        return sorted(counts.items(), key=lambda item: -item[1])
    return chunked_stats


def tokenizer(ns, split=None, count=None, build_vocab_each_step=True, reset=True,
              encode_split=True, use_pattern=True, extra=0, init_super=True, as_bytes=True):
    """A learner's RegexTokenizer with the choices they made in writing it."""
    base, regex = ns["Tokenizer"], ns["regex"]
    get_stats, merge, best_pair = ns["get_stats"], ns["merge"], ns["best_pair"]
    pattern_default = ns["GPT4_SPLIT_PATTERN"]

    class RegexTokenizer(base):
        def __init__(self, pattern=None):
            if init_super:
                super().__init__()
            self.pattern = pattern_default if pattern is None or not use_pattern else pattern
            self.compiled_pattern = regex.compile(self.pattern)

        def train(self, text, vocab_size, verbose=False):
            pieces = split(self, text) if split else self.compiled_pattern.findall(text)
            chunks = [list(c.encode("utf-8")) for c in pieces]
            if reset:
                self.merges = {}
                self.vocab = self._build_vocab()
            for idx in range(256, vocab_size + extra):
                stats = {}
                for chunk in chunks:
                    (count or get_stats)(chunk, stats)
                if not stats:
                    break
                pair = best_pair(stats, self.vocab)
                chunks = [merge(chunk, pair, idx) for chunk in chunks]
                self.merges[pair] = idx
                if build_vocab_each_step:
                    self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
            self.vocab = self._build_vocab()

        def encode(self, text):
            if not encode_split:
                return self.encode_chunk(text.encode("utf-8"))
            ids = []
            for chunk in self.compiled_pattern.findall(text):
                ids.extend(self.encode_chunk(chunk.encode("utf-8") if as_bytes else chunk))
            return ids
    return RegexTokenizer


@wrong("regex_tokenizer", "pairs were counted across chunks")
def tokenizer_training_on_the_whole_text(ns):
    return tokenizer(ns, split=lambda self, text: [text])


@wrong("regex_tokenizer", "not of set(chunks)")
def tokenizer_training_on_the_set_of_chunks(ns):
    return tokenizer(ns, split=lambda self, text: sorted(set(self.compiled_pattern.findall(text))))


@wrong("regex_tokenizer", "holds (97, 97) three times")
def tokenizer_counting_each_pair_once_per_chunk(ns):
    def once(chunk, stats):
        for pair in set(zip(chunk, chunk[1:])):
            stats[pair] = stats.get(pair, 0) + 1
    return tokenizer(ns, count=once)


@wrong("regex_tokenizer", "Use the pattern given to __init__")
def tokenizer_ignoring_its_pattern_argument(ns):
    return tokenizer(ns, use_pattern=False)


@wrong("regex_tokenizer", "encode must split the text")
def tokenizer_encoding_without_splitting(ns):
    return tokenizer(ns, encode_split=False)


@wrong("regex_tokenizer", [KINDS["exception"], "`re` module does not know"])
def tokenizer_compiling_with_re(ns):
    base = tokenizer(ns)

    class RegexTokenizer(base):
        def __init__(self, pattern=None):
            ns["Tokenizer"].__init__(self)
            self.pattern = pattern or ns["GPT4_SPLIT_PATTERN"]
            self.compiled_pattern = stdlib_re.compile(self.pattern)
    return RegexTokenizer


@wrong("regex_tokenizer", [KINDS["course_error"], "self.vocab lacks the id 256"])
def tokenizer_building_the_vocab_only_at_the_end(ns):
    return tokenizer(ns, build_vocab_each_step=False)


@wrong("regex_tokenizer", [KINDS["course_error"], "call super().__init__() first"])
def tokenizer_without_super_init(ns):
    return tokenizer(ns, init_super=False)


@wrong("regex_tokenizer", KINDS["shared"], breaks="state")
def tokenizer_whose_train_does_not_start_afresh(ns):
    base = tokenizer(ns, reset=False)

    class RegexTokenizer(base):
        def train(self, text, vocab_size, verbose=False):
            self.vocab = self._build_vocab()
            base.train(self, text, vocab_size, verbose)
    return RegexTokenizer


@wrong("regex_tokenizer", [KINDS["course_error"], "encode_chunk takes the bytes"])
def tokenizer_encoding_chunks_as_str(ns):
    return tokenizer(ns, as_bytes=False)


@wrong("regex_tokenizer", KINDS["round_trip"], breaks="decode")
def tokenizer_with_its_own_decode_per_token(ns):
    base = tokenizer(ns)

    class RegexTokenizer(base):
        def decode(self, ids):
            return "".join(self.vocab[i].decode("utf-8", errors="replace") for i in ids)
    return RegexTokenizer


@wrong("regex_tokenizer", "one merge too many")
def tokenizer_with_one_merge_too_many(ns):
    return tokenizer(ns, extra=1)


@wrong("regex_tokenizer", "Use the pattern given to __init__")
def tokenizer_encoding_with_gpt4s_pattern_always(ns):
    base = tokenizer(ns)
    gpt4 = ns["regex"].compile(ns["GPT4_SPLIT_PATTERN"])

    class RegexTokenizer(base):
        def encode(self, text):
            return [i for chunk in gpt4.findall(text) for i in self.encode_chunk(chunk.encode())]
    return RegexTokenizer


@wrong("regex_tokenizer", KINDS["empty"])
def tokenizer_splitting_with_split(ns):
    return tokenizer(ns, split=lambda self, text: self.compiled_pattern.split(text))


@wrong("regex_tokenizer", KINDS["round_trip"], breaks="decode")
def tokenizer_decoding_strictly_then_dropping(ns):
    base = tokenizer(ns)

    class RegexTokenizer(base):
        def decode(self, ids):
            return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="ignore")
    return RegexTokenizer


# -- answers that pass most visible cases: issue 33's learners wrote them ----------------------------

@wrong("chunked_stats", KINDS["shared"], breaks="state")
def chunked_stats_emptying_one_dict(ns, cell):
    return cell("counts = {}\n"
                "\n"
                "def chunked_stats(chunks):\n"
                "    counts.clear()                  # start from nothing each call\n"
                "    for chunk in chunks:\n"
                "        get_stats(chunk, counts)\n"
                "    return counts\n", ns)["chunked_stats"]


@wrong("regex_tokenizer", [KINDS["attribute"], "self.pattern"], breaks="contract")
def tokenizer_keeping_only_the_compiled_pattern(ns):
    base = tokenizer(ns)
    regex, default = ns["regex"], ns["GPT4_SPLIT_PATTERN"]

    class RegexTokenizer(base):
        def __init__(self, pattern=None):
            ns["Tokenizer"].__init__(self)
            self.compiled_pattern = regex.compile(pattern or default)   # all that is used
    return RegexTokenizer


globals().update(wrong.tests(every_seed=["regex_tokenizer"]))


# -- messages and points in detail -----------------------------------------------------------------

def test_chunked_stats_across_chunks_shows_the_pair_that_does_not_exist(ns, fails_with):
    fails_with(checks.chunked_stats(chunked_stats_over_the_joined_chunks(ns)),
               "chunked_stats([[1, 2], [3, 4]])", "unexpected: (2, 3)", "across chunks")


def test_regex_tokenizer_may_not_inherit_the_courses_own(fails_with):
    from bpe_course import RegexTokenizer

    class Lazy(RegexTokenizer):
        pass
    fails_with(checks.regex_tokenizer(Lazy), "inherits from the course's "
               "bpe_course.regex_tokenizer.RegexTokenizer")


def test_a_case_on_a_named_input_is_code_that_runs_as_pasted(ns):
    """The failing case defines its input (CHUNKS) from the course's corpus, with the imports
    it needs: pasted into a fresh cell, it runs and gives what the checker expected."""
    right = ns["chunked_stats"]

    def chunked_stats(chunks):
        if len(chunks) > 100:
            raise ValueError("too many chunks")
        return right(chunks)
    message = checks.chunked_stats(chunked_stats).message
    lines = message.splitlines()
    code = [line[4:] for line in lines[1:lines.index(next(l for l in lines
                                                         if l.startswith("expected:")))]]
    assert code[-1] == "chunked_stats(CHUNKS)" and "import regex" in code
    names = {"chunked_stats": right}
    exec("\n".join(code[:-1]), names)
    assert len(names["CHUNKS"]) > 100
    assert str(right(names["CHUNKS"]))[:60] in message.replace("\n", " ")
