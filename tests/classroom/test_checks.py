"""The checkers: right code passes, each classic mistake is caught with a message that helps.

The right code is the worksheets' own solutions (their solution and given
cells, executed here); each wrong version changes one thing, the way
learners do.
"""

import json
import pickle
from pathlib import Path

import nbformat
import pytest

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

ROOT = Path(__file__).resolve().parents[2]


def worksheet(name: str) -> dict:
    """The names a learner defines in solutions/NAME.ipynb: its solution and given cells, run."""
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    namespace = {"__name__": f"worksheet_{name[:2]}"}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (meta.get("solution") or
                                         (meta.get("locked") and not meta.get("grade"))):
            exec(compile(cell.source, f"<{name}>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def ws():
    return {name[:2]: worksheet(name) for name in WORKSHEETS}


def fails_with(verdict, *words):
    assert not verdict.passed, verdict.message
    flat = " ".join(verdict.message.split())          # hints are wrapped over lines
    for word in words:
        assert word in verdict.message or word in flat, f"{word!r} not in:\n{verdict.message}"
    return verdict.message


# -- the solutions pass, hidden cases included ------------------------------------------------

@pytest.mark.parametrize("sheet, name", [(s, n) for s, sheet in WORKSHEETS.items()
                                         for n in sheet.points if n != "train_bpe"])
def test_solution_passes_every_case(ws, sheet, name):
    target = ws[sheet[:2]][CHECKERS[name].target]
    verdict = checks.check(name, target, hidden=True)
    assert verdict.passed, verdict.message
    assert verdict.cases == sum(len(g.cases) for g in CHECKERS[name].groups())
    assert verdict.message == f"✅ {name}: passed all {verdict.cases} cases."


def test_checker_functions_follow_the_contract(ws):
    verdict = checks.merge(ws["02"]["merge"])
    assert (verdict.passed, verdict.cases) == (True, 12)
    assert isinstance(verdict.message, str)
    for name in CHECKERS:
        assert callable(getattr(checks, name))


# -- 01 ------------------------------------------------------------------------------------

def test_utf8_bytes_returning_code_points_is_caught():
    message = fails_with(checks.utf8_bytes(lambda text: [ord(c) for c in text]),
                         "utf8_bytes('é')", "expected: [195, 169]", "got:      [233]",
                         "code point")
    assert message.startswith("❌ utf8_bytes: case 4 of 18 failed.")


def test_utf8_bytes_returning_bytes_says_a_list_was_expected():
    fails_with(checks.utf8_bytes(lambda text: text.encode("utf-8")),
               "expected a list, but your code returned a bytes")


def test_code_points_and_bytes_in_the_wrong_order_is_caught():
    fails_with(checks.code_points_and_bytes(lambda t: (len(t.encode()), len(t))),
               "expected: (1, 2)", "got:      (2, 1)")


def test_decoder_without_errors_replace_is_caught():
    fails_with(checks.safe_decode(lambda b: bytes(b).decode("utf-8")),
               "raised an exception", "UnicodeDecodeError", "errors='replace'")
    fails_with(checks.safe_decode(lambda b: bytes(b).decode("utf-8", errors="ignore")),
               "expected: '\ufffd'", "got:      ''", "errors='ignore' drops them")


# -- 02 ------------------------------------------------------------------------------------

def test_get_stats_that_skips_overlaps_is_caught():
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for i in range(0, len(ids) - 1, 2):         # steps by 2: misses overlapping pairs
            counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
        return counts
    fails_with(checks.get_stats(get_stats), "get_stats([1, 2, 3, 1, 2])", "overlap")


def test_get_stats_that_ignores_counts_is_caught():
    def get_stats(ids, counts=None):
        out = {}
        for pair in zip(ids, ids[1:]):
            out[pair] = out.get(pair, 0) + 1
        return out
    fails_with(checks.get_stats(get_stats), "{(1, 2): 5}", "add to it")


def test_merge_that_mishandles_overlapping_runs_is_caught():
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(idx)
                i += 1                                # forgets to skip the second id
            else:
                out.append(ids[i])
                i += 1
        return out
    fails_with(checks.merge(merge), "merge([1, 2], (1, 2), 256)", "expected: [256]",
               "skip past both ids of a match")


def test_merge_that_merges_runs_twice_is_caught_on_the_overlapping_case():
    def merge(ids, pair, idx):              # replaces both overlapping occurrences
        out = list(ids)
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                out[i], out[i + 1] = idx, None
        return [x for x in out if x is not None]
    fails_with(checks.merge(merge), "merge([1, 1, 1], (1, 1), 256)", "expected: [256, 1]",
               "skip past both")


def test_merge_that_drops_a_pair_at_the_end_is_caught():
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids) - 1:
            if (ids[i], ids[i + 1]) == pair:
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    fails_with(checks.merge(merge), "merge([1], (1, 2), 256)", "expected: [1]", "got:      []")


def test_merge_that_changes_its_input_is_caught():
    def merge(ids, pair, idx):
        i = 0
        while i < len(ids) - 1:
            if (ids[i], ids[i + 1]) == pair:
                ids[i:i + 2] = [idx]
            i += 1
        return ids
    fails_with(checks.merge(merge), "leave `ids` as it was")


def test_encoder_applying_merges_in_the_wrong_order_is_caught(ws):
    class Wrong(ws["02"]["BasicTokenizer"]):
        def encode(self, text):                  # applies the *latest* merge first
            ids = list(text.encode("utf-8"))
            for pair, idx in sorted(self.merges.items(), key=lambda m: -m[1]):
                ids = ws["02"]["merge"](ids, pair, idx)
            return ids
    fails_with(checks.basic_tokenizer(Wrong), "tok.encode('aaabdaaabac')",
               "expected: [258, 100, 258, 97, 99]", "lowest id")


def test_tokenizer_decoder_without_errors_replace_is_caught(ws):
    class Wrong(ws["02"]["BasicTokenizer"]):
        def decode(self, ids):
            return b"".join(self.vocab[i] for i in ids).decode("utf-8")
    fails_with(checks.basic_tokenizer(Wrong), "tok.decode([128])", "UnicodeDecodeError",
               "errors='replace'")


def test_training_without_the_tie_break_is_caught(ws):
    base = ws["02"]["BasicTokenizer"]
    get_stats, merge = ws["02"]["get_stats"], ws["02"]["merge"]

    class Wrong(base):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            for idx in range(256, vocab_size):
                stats = get_stats(ids)
                if not stats:
                    break
                pair = max(stats, key=stats.get)   # ties: whichever came first
                ids = merge(ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    message = fails_with(checks.basic_tokenizer(Wrong), "tok.train('abcd', 257)", "best_pair")
    assert "first different merge, id 256" in message and "b'c' + b'd'" in message


def test_training_that_does_not_stop_when_pairs_run_out_is_caught(ws):
    best_pair = ws["02"]["best_pair"]

    class Wrong(ws["02"]["BasicTokenizer"]):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            for idx in range(256, vocab_size):
                stats = ws["02"]["get_stats"](ids)
                pair = best_pair(stats, self.vocab)      # fails on an empty dict
                ids = ws["02"]["merge"](ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    fails_with(checks.basic_tokenizer(Wrong), "tok.train('a', 300)", "ValueError",
               "stop early")


# -- 04 ------------------------------------------------------------------------------------

def test_chunked_stats_across_chunks_is_caught():
    def chunked_stats(chunks):
        flat = [i for chunk in chunks for i in chunk]
        return {p: sum(1 for q in zip(flat, flat[1:]) if q == p) for p in zip(flat, flat[1:])}
    fails_with(checks.chunked_stats(chunked_stats), "chunked_stats([[1, 2], [3, 4]])",
               "unexpected: (2, 3)", "never cross chunks")


def test_regex_tokenizer_counting_pairs_across_chunks_is_caught(ws):
    ns = ws["04"]

    class Wrong(ns["RegexTokenizer"]):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            self.merges, self.vocab = {}, self._build_vocab()
            for idx in range(256, vocab_size):
                stats = ns["get_stats"](ids)
                if not stats:
                    break
                pair = ns["best_pair"](stats, self.vocab)
                ids = ns["merge"](ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    fails_with(checks.regex_tokenizer(Wrong), "across chunks")


def test_regex_tokenizer_that_ignores_its_pattern_argument_is_caught(ws):
    ns = ws["04"]

    class Wrong(ns["RegexTokenizer"]):
        def __init__(self, pattern=None):
            super().__init__()                    # always GPT-4's pattern
    fails_with(checks.regex_tokenizer(Wrong), "RegexTokenizer(GPT2_SPLIT_PATTERN)",
               "Use the pattern given to __init__")


def test_regex_tokenizer_may_not_inherit_the_courses_own():
    from bpe_course import RegexTokenizer

    class Lazy(RegexTokenizer):
        pass
    fails_with(checks.regex_tokenizer(Lazy), "inherits from the course's "
               "bpe_course.regex_tokenizer.RegexTokenizer")


# -- 05 ------------------------------------------------------------------------------------

def test_split_special_without_escaping_is_caught():
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text] if text else []
        return [p for p in regex.split("(" + "|".join(tokens) + ")", text) if p]
    fails_with(checks.split_special(split_special), "escape")


def test_split_special_without_longest_first_is_caught():
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text] if text else []
        pattern = "(" + "|".join(regex.escape(t) for t in sorted(tokens)) + ")"
        return [p for p in regex.split(pattern, text) if p]
    fails_with(checks.split_special(split_special), "a<|end|><|end|>b", "longer must win")


def test_split_special_keeping_empty_pieces_is_caught():
    import regex

    def split_special(text, tokens):
        if not tokens:
            return [text]
        pattern = "(" + "|".join(regex.escape(t) for t in sorted(tokens, key=len)[::-1]) + ")"
        return regex.split(pattern, text)
    fails_with(checks.split_special(split_special), "Empty text has no pieces")


def test_encode_that_never_raises_for_disallowed_special_tokens_is_caught(ws):
    ns = ws["05"]

    class Wrong(ns["SpecialTokenizer"]):
        def encode(self, text, allowed_special="none_raise"):
            if allowed_special in ("none", "none_raise"):
                return self.encode_ordinary(text)
            return super().encode(text, "all")
    fails_with(checks.special_tokens(Wrong), "tok.encode('hello<|endoftext|>world')",
               "expected: raises ValueError naming '<|endoftext|>'", "(no exception)",
               "none_raise")


def test_special_ids_unknown_to_decode_are_caught(ws):
    class Wrong(ws["05"]["SpecialTokenizer"]):
        def register_special_tokens(self, special_tokens):
            self.special_tokens = {**self.special_tokens, **special_tokens}   # vocab not rebuilt
    fails_with(checks.special_tokens(Wrong), "tok.decode(", "decode must know the special ids")


def test_load_that_forgets_to_recompile_the_pattern_is_caught(ws):
    class Wrong(ws["05"]["SpecialTokenizer"]):
        def load(self, model_file):
            with open(model_file, encoding="utf-8") as f:
                state = json.load(f)
            self.pattern = state["pattern"]        # the compiled pattern is still GPT-4's
            self.merges = {(a, b): idx for a, b, idx in state["merges"]}
            self.special_tokens = state["special_tokens"]
            self.vocab = self._build_vocab()
    fails_with(checks.save_load(Wrong), "tok2.encode(", "recompile")


def test_saving_a_pickle_is_caught(ws):
    class Wrong(ws["05"]["SpecialTokenizer"]):
        def save(self, file_prefix):
            with open(file_prefix + ".model", "wb") as f:
                pickle.dump(self.__dict__, f)

        def load(self, model_file):
            with open(model_file, "rb") as f:
                self.__dict__.update(pickle.load(f))
    fails_with(checks.save_load(Wrong), "text_file(TMP + '/mine.model')", "never a pickle")


def test_a_class_that_does_not_write_the_methods_is_told_so():
    from bpe_course import RegexTokenizer

    class Empty(RegexTokenizer):
        pass
    fails_with(checks.save_load(Empty), "`SpecialTokenizer.save` comes from the course's")


# -- 06 ------------------------------------------------------------------------------------

def test_recover_merges_without_the_rank_limit_is_caught():
    def recover_merges(ranks):
        merges = {}
        for token, rank in ranks.items():
            if len(token) > 1:                      # longest known prefix: no BPE at all
                cut = max(i for i in range(1, len(token)) if token[:i] in ranks)
                merges[ranks[token[:cut]], ranks[token[cut:]]] = rank
        return merges
    fails_with(checks.recover_merges(recover_merges), "b'abc': 5", "*below*")


def test_tokenizer_that_ignores_the_byte_shuffle_is_caught(ws):
    class Wrong(ws["06"]["GPT4Tokenizer"]):
        def __init__(self, encoding="cl100k_base"):
            super().__init__(encoding)
            self.byte_ids = list(range(256))
            self.vocab = self._build_vocab()
    fails_with(checks.gpt4_tokenizer(Wrong), "tok.encode('!')", "expected: [0]",
               "got:      [33]", "shuffled order")


def test_gpt4_tokenizer_without_special_tokens_is_caught(ws):
    ns = ws["06"]

    class Wrong(ns["RegexTokenizer"]):
        def __init__(self, encoding="cl100k_base"):
            super().__init__(ns["SPLIT_PATTERNS"][encoding])
            ranks = ns["load_ranks"](encoding)
            self.merges = ns["recover_merges"](ranks)
            self.byte_ids = [ranks[bytes([b])] for b in range(256)]
            self.vocab = self._build_vocab()
    fails_with(checks.gpt4_tokenizer(Wrong), "allowed_special='all'", "register_special_tokens")


# -- 07 ------------------------------------------------------------------------------------

def test_count_pretokens_that_counts_special_tokens_is_caught():
    import regex
    from bpe_course import GPT4_SPLIT_PATTERN

    def count_pretokens(text, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):
        counts = {}
        for chunk in regex.findall(pattern, text):
            counts[chunk] = counts.get(chunk, 0) + 1
        return counts
    fails_with(checks.count_pretokens(count_pretokens), "['<|endoftext|>']",
               "Cut the text at the special tokens")


def test_trainer_whose_vocab_size_leaves_out_special_tokens_is_caught(ws):
    train = ws["07"]["train_bpe"]

    def train_bpe(text, vocab_size, special_tokens=(), pattern=ws["07"]["GPT4_SPLIT_PATTERN"]):
        vocab, merges = train(text, vocab_size + len(special_tokens), special_tokens, pattern)
        return vocab, merges                        # vocab_size not counting special tokens
    fails_with(checks.train_bpe(train_bpe), "['<|endoftext|>']", "the first 5 items agree, but "
               "you have 1 item more", "vocab_size - 256 - len(special_tokens)")


def naive_trainer():
    """A learner's naive trainer: right merges, no speed-up (its own helpers, as a learner's
    would be: the course's are off limits while it is checked)."""
    import regex

    from bpe_course import GPT4_SPLIT_PATTERN
    from bpe_course.special import split_special

    def train_bpe(text, vocab_size, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):
        chunks = [list(c.encode()) for part in split_special(text, special_tokens)
                  if part not in special_tokens for c in regex.findall(pattern, part)]
        vocab = {i: bytes([i]) for i in range(256)}
        merges = []
        for idx in range(256, vocab_size - len(special_tokens)):
            stats = {}
            for chunk in chunks:
                for pair in zip(chunk, chunk[1:]):
                    stats[pair] = stats.get(pair, 0) + 1
            if not stats:
                break
            a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
            new_chunks = []
            for chunk in chunks:
                out, i = [], 0
                while i < len(chunk):
                    if i < len(chunk) - 1 and chunk[i] == a and chunk[i + 1] == b:
                        out.append(idx)
                        i += 2
                    else:
                        out.append(chunk[i])
                        i += 1
                new_chunks.append(out)
            chunks = new_chunks
            vocab[idx] = vocab[a] + vocab[b]
            merges.append((vocab[a], vocab[b]))
        for token in special_tokens:
            vocab[len(vocab)] = token.encode()
        return vocab, merges
    return train_bpe


def test_the_naive_trainer_is_not_fast_enough():
    fails_with(checks.train_bpe(naive_trainer()), "failed", "expected: at least 10",
               "Count each distinct pre-token once")


def test_a_wrapper_around_the_course_is_off_limits():
    import bpe_course
    from bpe_course.classroom.checking.references import naive_train_bpe

    def train_bpe(*args, **kwargs):
        return naive_train_bpe(*args, **kwargs)
    fails_with(checks.train_bpe(train_bpe), "case 1 of",
               "bpe_course.classroom.checking.references.naive_train_bpe is off limits")
    kept = bpe_course.merge                    # a reference kept from an earlier cell

    def merge(ids, pair, idx):
        return kept(ids, pair, idx)
    verdict = checks.merge(merge)
    fails_with(verdict, "bpe_course.pairs.merge is off limits",
               "hint: your answer called the course's own code")
    assert "Nothing to merge in an empty list" not in verdict.message   # the case's own hint
    assert bpe_course.merge([1, 2], (1, 2), 256) == [256]        # unlocked afterwards


def test_solution_trainer_is_right_and_fast(ws):
    verdict = checks.check("train_bpe", ws["07"]["train_bpe"], hidden=True)
    assert verdict.passed, verdict.message


# -- how verdicts behave ------------------------------------------------------------------------

def test_a_stub_is_not_attempted_yet():
    def merge(ids, pair, idx):
        # YOUR CODE HERE
        raise NotImplementedError()
    verdict = checks.merge(merge)
    assert (verdict.passed, verdict.attempted) == (False, False)
    assert verdict.message.startswith("⏳ merge: not attempted yet.")


def test_a_class_stub_is_not_attempted_yet(ws):
    class BasicTokenizer:
        def train(self, text, vocab_size, verbose=False):
            raise NotImplementedError()

        def encode(self, text):
            raise NotImplementedError()

        def decode(self, ids):
            raise NotImplementedError()
    assert "not attempted yet" in checks.basic_tokenizer(BasicTokenizer).message


def test_a_learners_exception_is_shown_with_its_line_not_raised():
    def merge(ids, pair, idx):
        out = []
        for i in range(len(ids)):
            if ids[i] == pair[0] and ids[i + 1] == pair[1]:
                out.append(idx)
        return out
    message = fails_with(checks.merge(merge), "case 2 of 12 raised an exception",
                         "IndexError: list index out of range",
                         "of your code: if ids[i] == pair[0] and ids[i + 1] == pair[1]:")
    assert "Traceback" not in message


def test_what_the_learners_code_printed_is_shown_when_it_fails():
    def get_stats(ids, counts=None):
        print("debug:", ids)
        return {}
    fails_with(checks.get_stats(get_stats), "your code printed:", "debug: [1, 2]")


def test_an_endless_loop_is_stopped():
    def merge(ids, pair, idx):
        i = 0
        while i < len(ids):
            pass
        return []
    fails_with(checks.check("merge", merge, time_limit=0.5), "case 2 of 12 took too long",
               "TimeoutError")


def test_an_answer_that_claims_to_equal_everything_does_not_pass():
    class Liar(list):
        def __eq__(self, other):
            return True

    class Anything:
        def __eq__(self, other):
            return True
    assert not checks.merge(lambda ids, pair, idx: Liar([0])).passed
    fails_with(checks.merge(lambda ids, pair, idx: Anything()), "expected a list")


def test_the_courses_own_function_is_refused():
    import bpe_course
    fails_with(checks.merge(bpe_course.merge), "is the course's own bpe_course.pairs.merge")


def test_verdicts_show_passes_on_stdout_and_failures_on_stderr(ws, capsys):
    checks.merge(ws["02"]["merge"])._ipython_display_()
    checks.merge(lambda ids, pair, idx: [])._ipython_display_()
    out, err = capsys.readouterr()
    assert out == "✅ merge: passed all 12 cases.\n"
    assert err.startswith("❌ merge: case 2 of 12 failed.")


def test_attempt_shows_errors_and_lets_the_cell_run_on(capsys):
    with checks.attempt():
        raise NotImplementedError()
    with checks.attempt():
        {}["missing"]
    out, err = capsys.readouterr()
    assert "not attempted yet" in err
    assert "KeyError: 'missing'" in err
