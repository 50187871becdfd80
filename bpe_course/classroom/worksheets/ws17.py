"""Worksheet 17, the lab as a graded lab in CS336's style: train on a slice within budgets.

`bytes_per_token` (a tokenizer's compression on held-out documents, pooled
over them) and `train_bpe` (checker `lab_train_bpe`): a trainer with
`train_bpe`'s signature whose merges equal the reference's on a slice of the
lab's corpus (the course's own prose, cut into documents as
`lab.corpus.course_slice` cuts it, `<|endoftext|>` between them, GPT-2's
pattern as CS336's tests use it), whose vocabulary compresses the held-out
documents at least as the reference's does, and which stays within two
budgets:

- time: CPU time, at least `SPEED_REQUIRED` times as fast as the course's naive
  trainer on a text of `SPEED_TEXT` characters (the speed check of `grading.speed`,
  timed by the sandbox's driver from outside the learner's process, against the naive
  trainer timed in the same run);
- memory: `MEMORY_BUDGET` bytes for all the notebook's processes together while it is
  graded (`Worksheet.memory`; the grader stops the notebook beyond it).

The slice, the held-out documents and the speed text are drawn afresh for each grading
run from the prose corpus (hidden cases).
"""

from __future__ import annotations

import functools

from .common import (
    CONTRACT,
    EOT,
    GPT2_SPLIT_PATTERN,
    REAL,
    REF,
    WRONG,
    Case,
    Checker,
    Group,
    Worksheet,
    course_ref,
    escaped,
)

SPEED_TEXT = (0, 100_000)       # the speed case's text: prose()[0:100_000]
SPEED_VOCAB = 456
SPEED_REQUIRED = 12
MEMORY_BUDGET = 2**30           # bytes all the notebook's processes may hold while graded
SLICE_VOCAB = 556
FAST_HINT = ("Count each distinct pre-token once with how often it occurs, keep the pair "
             "counts from one merge to the next and, after a merge, update only the "
             "pre-tokens that contain the merged pair (an index from pair to pre-tokens).")


@functools.cache
def documents() -> tuple[list[str], list[str]]:
    """The lab slice's documents, the course's prose then its Python code: (training, held
    out), cut and split as `lab.corpus.course_slice` cuts and splits them (held out by a hash
    of each document's name)."""
    from ... import corpora
    from ...lab.corpus import (
        SLICE_CODE_BYTES,
        SLICE_DOC_CHARS,
        SLICE_HELDOUT_PER_MILLE,
        is_heldout,
        paragraph_documents,
    )
    train, held = [], []
    for name, text in [("prose", corpora.prose()),
                       ("python_code", corpora.python_code(SLICE_CODE_BYTES))]:
        for k, doc in enumerate(paragraph_documents(text, SLICE_DOC_CHARS)):
            side = held if is_heldout(f"course:{name}:{k}", SLICE_HELDOUT_PER_MILLE) else train
            side.append(doc)
    return train, held


def slice_of(start: int, count: int) -> tuple[str, str]:
    """`count` training documents from `start`, joined by `<|endoftext|>` on lines of their
    own as the lab's shards hold them; and how to make it."""
    train, _ = documents()
    docs = train[start:start + count]
    return (f"\n{EOT}\n".join(docs),
            f"'\\n<|endoftext|>\\n'.join(train_documents[{start}:{start + count}])")


def heldout_of(start: int, count: int) -> tuple[list[str], str]:
    _, held = documents()
    return held[start:start + count], f"heldout_documents[{start}:{start + count}]"


def _wrong(cases: list[Case]) -> list[Case]:
    for case in cases:
        case.breaks = WRONG
    return cases


# -- exercise 1: bytes per token on held-out documents -----------------------------------------

TOKENIZER_SETUP = ("from bpe_course import RegexTokenizer\n"
                   "tok = RegexTokenizer.from_vocab_merges(VOCAB, MERGES, ['<|endoftext|>'], "
                   "pattern=GPT2_SPLIT_PATTERN)")


def trained(start: int, count: int, size: int) -> tuple[dict, list]:
    """The reference's `(vocab, merges)` on `count` training documents from `start`, with
    GPT-2's pattern: the tokenizer `bytes_per_token`'s cases encode with (and the code a
    failing case shows to rebuild it)."""
    from ...training.trainer import train_bpe
    text, _ = slice_of(start, count)
    return train_bpe(text, size, [EOT], GPT2_SPLIT_PATTERN)


@functools.cache
def small_tokenizer() -> tuple[dict, list, str]:
    """A tokenizer trained on the first 12 training documents: (vocab, merges, how)."""
    vocab, merges = trained(0, 12, 400)
    return vocab, merges, "bpe_course.classroom.worksheets.ws17.trained(0, 12, 400)"


def bytes_per_token_groups() -> list[Group]:
    vocab, merges, how = small_tokenizer()
    held, held_doc = heldout_of(0, 6)
    pooled = ("Add up the UTF-8 bytes of every document, and the tokens of every document, "
              "then divide once: the documents are one held-out text, and a long document "
              "counts for more than a short one.")
    per_doc = ("Encode each document on its own (tok.encode_ordinary(doc)): joined, a token "
               "could span the end of one document and the start of the next.")
    ordinary = ("Held-out text that merely contains '<|endoftext|>' is ordinary text here: "
                "use tok.encode_ordinary (encode raises for a special token it was not "
                "allowed).")
    env = {"VOCAB": vocab, "MERGES": merges, "HELDOUT": held,
           "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN}
    env_doc = {"VOCAB": f"{how}[0]", "MERGES": f"{how}[1]", "HELDOUT": held_doc,
               "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}
    return [Group([
        Case("bytes_per_token(tok, [])", "No documents, no bytes: return 0.0."),
        Case("bytes_per_token(tok, ['', ''])", "Empty documents: no bytes, no tokens: 0.0."),
        *_wrong([
            Case("bytes_per_token(tok, ['hello world'])", "Bytes over tokens: "
                 "len(doc.encode('utf-8')) / len(tok.encode_ordinary(doc))."),
            Case("bytes_per_token(tok, ['naïve café — 日本語'])", "Bytes, not characters: "
                 "len(doc) counts code points; len(doc.encode('utf-8')) the bytes."),
            Case("bytes_per_token(tok, ['the end', 'of the story, and of the long page'])",
                 pooled),
            Case("bytes_per_token(tok, ['t', 'he', ' o', 'f'])", per_doc),
            Case("bytes_per_token(tok, ['a<|endoftext|>b'])", ordinary,
                 when={"raised:ValueError": ordinary}),
            Case("bytes_per_token(tok, HELDOUT)", pooled, weight=REAL),
        ])], setup=TOKENIZER_SETUP, env=env, env_doc=env_doc)]


def recognize_bytes_per_token(inputs: dict, expected, got):
    """Which number came back: upside down, per character, a mean of the documents'
    ratios, the documents joined, a count."""
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[1], list) or not all(
            isinstance(d, str) for d in args[1]) or not isinstance(expected, float) or \
            not expected or not isinstance(got, (int, float)) or isinstance(got, bool):
        return None
    docs = args[1]
    size = sum(len(d.encode("utf-8")) for d in docs)
    tokens = size / expected
    close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))   # noqa: E731
    if close(got, 1 / expected):
        return ("upside_down", "that is tokens per byte, the ratio upside down: divide the "
                "bytes by the tokens.")
    chars = sum(len(d) for d in docs)
    if chars != size and close(got, chars / tokens):
        return ("per_character", "that is characters per token: len(doc) counts code "
                "points; count the UTF-8 bytes, len(doc.encode('utf-8')).")
    if close(got, round(tokens)) and got != expected:
        return ("count", "that is the number of tokens: divide the bytes by it.")
    vocab, merges, _ = small_tokenizer()
    from ...regex_tokenizer import RegexTokenizer
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, [EOT], pattern=GPT2_SPLIT_PATTERN)
    if not close(expected, size / max(1, sum(len(tok.encode_ordinary(d)) for d in docs))):
        return None                         # another tokenizer than the worksheet's
    ratios = [len(d.encode("utf-8")) / len(tok.encode_ordinary(d)) for d in docs if d]
    if len(ratios) > 1 and close(got, sum(ratios) / len(ratios)):
        return ("mean_of_ratios", "that is the mean of each document's ratio: add up the "
                "bytes and the tokens of all the documents, then divide once.")
    for sep in ("", "\n", " "):
        joined = sep.join(docs)
        if len(docs) > 1 and joined and close(got, len(joined.encode("utf-8")) / len(
                tok.encode_ordinary(joined))):
            return ("joined", "the documents were joined into one text before encoding: "
                    "encode each document on its own, so that no token spans two of them.")
    return None


# -- exercise 2: the trainer --------------------------------------------------------------------

HELDOUT_SETUP = '''import regex
def heldout_bytes_per_token(merges, docs, pattern):
    """Bytes per token of `docs` encoded with `merges` (lowest rank first), by pre-token."""
    rank = {pair: r for r, pair in enumerate(merges)}
    size = tokens = 0
    for doc in docs:
        size += len(doc.encode("utf-8"))
        for chunk in regex.findall(pattern, doc):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            while len(parts) > 1:
                best = min(range(len(parts) - 1),
                           key=lambda i: rank.get((parts[i], parts[i + 1]), len(rank)))
                if (parts[best], parts[best + 1]) not in rank:
                    break
                parts[best:best + 2] = [parts[best] + parts[best + 1]]
            tokens += len(parts)
    return size / tokens
'''


def lab_train_bpe_groups() -> list[Group]:
    from ...training.trainer import train_bpe
    same = ("The merges must be exactly the reference's: pairs counted inside pre-tokens "
            "only, special tokens cut out first, ties broken by the greatest (left bytes, "
            "right bytes), as CS336's tests expect. " + FAST_HINT)
    size = ("vocab_size counts the 256 bytes, the merges and the special tokens; vocab maps "
            "each id to its bytes (any ids: only the set of tokens is compared).")
    pattern = ("Split with the pattern you are given: CS336's tests pass GPT-2's "
               "(GPT2_SPLIT_PATTERN), while train_bpe's default is GPT-4's.")
    text, doc = slice_of(0, 15)
    held, held_doc = heldout_of(0, 8)
    vocab, merges = train_bpe(text, SLICE_VOCAB, [EOT], GPT2_SPLIT_PATTERN)
    bound = round(_bpt(merges, held) * 0.995, 4)
    compress = (f"On the held-out documents your vocabulary must give at least {bound} bytes "
                "per token (the reference's, less 0.5%): right merges give it; merges that "
                "stop early or cross pre-tokens do not.")
    speed, speed_doc = _prose(*SPEED_TEXT)
    train = "vocab, merges = train_bpe"
    cs336 = CS336_TEXT
    return [
        Group([Case("merges", "No text, no pairs, no merges: []."),
               Case("len(vocab)", size)], setup=f"{train}('', 300)"),
        Group([Case("merges", "Every pair occurs once here: ties go to the greatest "
                    "(left bytes, right bytes).", breaks=WRONG)], setup=f"{train}('abcd', 257)"),
        Group(_wrong([Case("merges", pattern + " " + same),
                      Case("sorted(vocab.values())", size), Case("len(vocab)", size)]),
              setup=f"{train}({cs336!r} + '<|endoftext|>' + {cs336!r}, 262, "
                    f"['<|endoftext|>'], GPT2_SPLIT_PATTERN)",
              env={"GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}),
        Group([Case("tokens = ['<|pad|>', '<|endoftext|>']\n"
                    "vocab, merges = train_bpe('a<|pad|>b ab<|endoftext|>', 262, tokens)\n"
                    "(merges, tokens)", "Leave the list of special tokens as it was: sort a "
                    "copy if you need one sorted.", breaks=CONTRACT, probe="unchanged:2")]),
        Group(_wrong([Case("len(vocab)", size),
                      Case("merges[:20]", same, weight=5),
                      Case("merges", same, weight=REAL),
                      Case("sorted(vocab.values())", size, weight=5),
                      Case("round(heldout_bytes_per_token(merges, HELDOUT, GPT2_SPLIT_PATTERN), 4)",
                           compress, expected=bound, judge="at_least", weight=5)]),
              setup=HELDOUT_SETUP + f"{train}(TEXT, {SLICE_VOCAB}, ['<|endoftext|>'], "
                                    f"GPT2_SPLIT_PATTERN)",
              env={"TEXT": text, "HELDOUT": held, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "HELDOUT": held_doc,
                       "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}, time_limit=60),
        Group([Case(f"fast = seconds(lambda: train_bpe(TEXT, {SPEED_VOCAB}), repeat=3)\n"
                    f"slow = naive_seconds(TEXT, {SPEED_VOCAB})\n"
                    "round(slow / fast, 1)", FAST_HINT, expected=SPEED_REQUIRED,
                    judge="at_least", breaks="slow")],
              env={"TEXT": speed}, env_doc={"TEXT": speed_doc}, time_limit=180),
    ]


def _prose(start: int, stop: int) -> tuple[str, str]:
    from .common import prose
    return prose(start, stop)


def _bpt(merges, docs) -> float:
    """The held-out bytes per token of `merges`, as the case's setup computes it."""
    namespace: dict = {}
    exec(HELDOUT_SETUP, namespace)
    return namespace["heldout_bytes_per_token"](merges, docs, GPT2_SPLIT_PATTERN)


def recognize_lab_trainer(inputs: dict, expected, got):
    """Merges one too many or too few, GPT-4's pattern where GPT-2's is given, special
    tokens split and counted as text. (Merges of ids are the checkers' own "ids where
    bytes are wanted".)"""
    if not (isinstance(expected, list) and isinstance(got, list) and expected and all(
            isinstance(m, tuple) and len(m) == 2 and all(isinstance(x, bytes) for x in m)
            for m in expected)):
        return None
    if len(got) > len(expected) and got[:len(expected)] == expected:
        return ("more_merges", f"{len(got) - len(expected)} merge(s) too many: vocab_size "
                "counts the 256 bytes, the merges and the special tokens.")
    if 0 < len(got) < len(expected) and expected[:len(got)] == got:
        return ("fewer_merges", f"{len(expected) - len(got)} merge(s) too few: keep merging "
                "until the vocabulary has vocab_size tokens, special tokens included (or no "
                "pair is left).")
    for reference, mistakes in _trainer_mistakes():
        if expected != reference[:len(expected)]:
            continue
        for merges, kind, words in mistakes:
            if got == merges[:len(got)] and len(got) == min(len(expected), len(merges)):
                return kind, words
    if any(isinstance(m, tuple) and len(m) == 2 and all(isinstance(x, bytes) for x in m)
           and (b"<|" in m[0] + m[1] or b"|>" in m[0] + m[1]) for m in got):
        return ("special_merged", "a merge joins bytes of a special token: cut the text at "
                "the special tokens before counting, and never merge across them.")
    return None


CS336_TEXT = ("low low low low low lower lower widest widest widest newest newest newest "
              "newest newest newest")


@functools.cache
def _trainer_mistakes() -> list[tuple[list, list[tuple[list, str, str]]]]:
    """For each text the worksheet trains on with GPT-2's pattern: the reference's merges,
    and the merges of two learners' mistakes (GPT-4's pattern kept; the special tokens
    left in the text), each with its kind and words."""
    from ...training.trainer import train_bpe
    out = []
    for text, size in [(CS336_TEXT + EOT + CS336_TEXT, 262), (slice_of(0, 15)[0], SLICE_VOCAB)]:
        _, reference = train_bpe(text, size, [EOT], GPT2_SPLIT_PATTERN)
        _, gpt4 = train_bpe(text, size, [EOT])
        # one special id still reserved, but the text split and counted as it is
        _, as_text = train_bpe(text, size, ["\x00"], GPT2_SPLIT_PATTERN)
        out.append((reference, [
            (gpt4, "pattern", "these are the merges of GPT-4's pattern: split with the pattern "
             "you are given (GPT2_SPLIT_PATTERN here, as CS336's tests use), not the default."),
            (as_text, "special_as_text", "the special tokens were split and counted as "
             "ordinary text: cut the text at them first (split_special), and count only the "
             "pieces between them.")]))
    return out


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _bytes_per_token_hidden(rng):
    train, held = documents()
    start = rng.randrange(0, len(train) - 10)
    size = rng.randrange(300, 420)
    vocab, merges = trained(start, 6, size)
    k = rng.randrange(0, len(held) - 4)
    docs, docs_doc = heldout_of(k, rng.randrange(2, 5))
    how = f"bpe_course.classroom.worksheets.ws17.trained({start}, 6, {size})"
    return [Group(_wrong([Case("bytes_per_token(tok, HELDOUT)", "Bytes over tokens, both "
                               "added up over the documents, each encoded on its own.",
                               weight=REAL),
                          Case(f"bytes_per_token(tok, {escaped(held[k][:200])!r}.split('\\n'))",
                               "Bytes over tokens, pooled over the documents.")]),
                  setup=TOKENIZER_SETUP,
                  env={"VOCAB": vocab, "MERGES": merges, "HELDOUT": docs,
                       "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
                  env_doc={"VOCAB": f"{how}[0]", "MERGES": f"{how}[1]", "HELDOUT": docs_doc,
                           "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"})]


def _lab_train_bpe_hidden(rng):
    """A slice of 15 to 25 training documents at a random place, trained with GPT-2's
    pattern and `<|endoftext|>`, checked on held-out documents; and a page of code with
    the default pattern."""
    from ...training.trainer import train_bpe
    from .common import random_code
    train, held = documents()
    start = rng.randrange(0, len(train) - 30)
    text, doc = slice_of(start, rng.randrange(15, 25))
    size = rng.randrange(450, 650)
    k = rng.randrange(0, len(held) - 8)
    docs, docs_doc = heldout_of(k, 8)
    _, merges = train_bpe(text, size, [EOT], GPT2_SPLIT_PATTERN)
    bound = round(_bpt(merges, docs) * 0.995, 4)
    code, code_doc = random_code(rng, rng.randrange(20_000, 40_000))
    return [
        Group(_wrong([Case("merges", FAST_HINT, weight=REAL),
                      Case("sorted(vocab.values())", FAST_HINT, weight=5),
                      Case("round(heldout_bytes_per_token(merges, HELDOUT, GPT2_SPLIT_PATTERN), 4)",
                           "Right merges compress the held-out documents as the reference's "
                           "do.", expected=bound, judge="at_least", weight=5)]),
              setup=HELDOUT_SETUP + f"vocab, merges = train_bpe(TEXT, {size}, "
                                    f"['<|endoftext|>'], GPT2_SPLIT_PATTERN)",
              env={"TEXT": text, "HELDOUT": docs, "GPT2_SPLIT_PATTERN": GPT2_SPLIT_PATTERN},
              env_doc={"TEXT": doc, "HELDOUT": docs_doc,
                       "GPT2_SPLIT_PATTERN": "bpe_course.GPT2_SPLIT_PATTERN"}, time_limit=60),
        Group(_wrong([Case("merges", FAST_HINT, weight=REAL)]),
              setup=f"vocab, merges = train_bpe(CODE, {rng.randrange(350, 450)}, "
                    f"['<|endoftext|>'])",
              env={"CODE": code}, env_doc={"CODE": code_doc}, time_limit=60),
    ]


def naive_timings() -> list[tuple[str, int]]:
    """The speed case's input: the grader's driver times the course's naive trainer on a
    text of this size before any of the learner's code runs."""
    return [(_prose(*SPEED_TEXT)[0], SPEED_VOCAB)]


# The course's tokenizer, which the worksheet builds from a trained vocabulary to measure it,
# and the lab's corpus module, which cuts the slice into documents. Neither trains.
TOKENIZER_CODE = ("bpe_course.regex_tokenizer", "bpe_course.base", "bpe_course.pairs",
                  "bpe_course.pretokenize", "bpe_course.special", "bpe_course.save_load",
                  "bpe_course.streaming", "bpe_course.text", "bpe_course.lab.corpus")
NO_TRAINING = ("bpe_course.regex_tokenizer.RegexTokenizer.train",
               "bpe_course.basic.BasicTokenizer.train")


WORKSHEET = Worksheet(
    "17_lab_at_scale",
    points={"bytes_per_token": 1, "lab_train_bpe": 4},
    checkers=[
        Checker("bytes_per_token", "bytes_per_token", "function",
                course_ref(REF + "bytes_per_token"), bytes_per_token_groups,
                recognize=recognize_bytes_per_token),
        Checker("lab_train_bpe", "train_bpe", "function", course_ref(REF + "lab_train_bpe"),
                lab_train_bpe_groups, recognize=recognize_lab_trainer),
    ],
    helpers={"bytes_per_token": TOKENIZER_CODE, "lab_train_bpe": TOKENIZER_CODE},
    forbidden={"bytes_per_token": NO_TRAINING, "lab_train_bpe": NO_TRAINING},
    answers=("bpe_course.training.trainer.train_bpe", "bpe_course.training.trainer.learn_merges"),
    hidden={"bytes_per_token": _bytes_per_token_hidden, "lab_train_bpe": _lab_train_bpe_hidden},
    naive_timings=naive_timings,
    memory=MEMORY_BUDGET,
)
