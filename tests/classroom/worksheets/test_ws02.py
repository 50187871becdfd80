"""Worksheet 02, BPE basics: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "02_bpe_basics"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


@wrong("get_stats", "skips overlapping pairs")
def get_stats_stepping_by_two(ns):
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for i in range(0, len(ids) - 1, 2):
            counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
        return counts
    return get_stats


@wrong("get_stats", "counts you were given were ignored", breaks="contract")
def get_stats_ignoring_counts(ns):
    def get_stats(ids, counts=None):
        out = {}
        for pair in zip(ids, ids[1:]):
            out[pair] = out.get(pair, 0) + 1
        return out
    return get_stats


@wrong("get_stats", "`counts = counts or {}`", breaks="contract")
def get_stats_with_counts_or_a_new_dict(ns):
    def get_stats(ids, counts=None):
        counts = counts or {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    return get_stats


@wrong("get_stats", [KINDS["shared"], "line 1 of your code: def get_stats(ids, counts={}):"],
       breaks="state")
def get_stats_with_a_mutable_default(ns, cell):
    return cell("def get_stats(ids, counts={}):\n"
                "    for pair in zip(ids, ids[1:]):\n"
                "        counts[pair] = counts.get(pair, 0) + 1\n"
                "    return counts\n")["get_stats"]


@wrong("get_stats", "counts each pair once")
def get_stats_over_a_set_of_pairs(ns):
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for pair in set(zip(ids, ids[1:])):
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    return get_stats


@wrong("get_stats", "misses the last pair")
def get_stats_stopping_one_early(ns):
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for i in range(len(ids) - 2):
            pair = (ids[i], ids[i + 1])
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    return get_stats


@wrong("get_stats", KINDS["type"])
def get_stats_returning_most_common(ns):
    from collections import Counter

    def get_stats(ids, counts=None):
        found = Counter(zip(ids, ids[1:]))
        if counts is not None:
            for pair, n in found.items():
                counts[pair] = counts.get(pair, 0) + n
            return counts
        return found.most_common()
    return get_stats


@wrong("get_stats", [KINDS["exception"], "IndexError", "past the end of a list"])
def get_stats_reading_past_the_end(ns):
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for i in range(len(ids)):
            pair = (ids[i], ids[i + 1])
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    return get_stats


@wrong("merge", "does not skip past a match")
def merge_moving_on_by_one(ns):
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(idx)
            else:
                out.append(ids[i])
            i += 1
        return out
    return merge


@wrong("merge", "merges overlapping occurrences twice")
def merge_every_start_of_the_pair(ns):
    def merge(ids, pair, idx):
        starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
        out, i = [], 0
        while i < len(ids):
            if i in starts:
                out.append(idx)
                i += 1 if i + 1 in starts else 2
            else:
                out.append(ids[i])
                i += 1
        return out
    return merge


@wrong("merge", "drops the last id")
def merge_forgetting_the_last_id(ns):
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
    return merge


@wrong("merge", [KINDS["mutated"], "line 5 of your code: ids[i:i + 2] = [idx]"],
       breaks="contract")
def merge_in_place(ns, cell):
    return cell("def merge(ids, pair, idx):\n"
                "    i = 0\n"
                "    while i < len(ids) - 1:\n"
                "        if (ids[i], ids[i + 1]) == pair:\n"
                "            ids[i:i + 2] = [idx]\n"
                "        i += 1\n"
                "    return ids\n")["merge"]


@wrong("merge", "replaces only the first occurrence")
def merge_with_index(ns):
    def merge(ids, pair, idx):
        for i in range(len(ids) - 1):
            if ids[i] == pair[0] and ids[i + 1] == pair[1]:
                return ids[:i] + [idx] + ids[i + 2:]
        return list(ids)
    return merge


@wrong("merge", "matches the pair in both orders")
def merge_matching_a_set(ns):
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and {ids[i], ids[i + 1]} == set(pair):
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    return merge


@wrong("merge", KINDS["type"])
def merge_returning_a_tuple(ns):
    right = ns["merge"]

    def merge(ids, pair, idx):
        return tuple(right(ids, pair, idx))
    return merge


@wrong("encode_bytes", "joins the leftmost pair")
def encode_bytes_joining_the_leftmost_pair(ns):
    def encode_bytes(text, merges):
        parts = [bytes([b]) for b in text.encode()]
        joined = True
        while joined:
            joined = False
            for i in range(len(parts) - 1):
                if (parts[i], parts[i + 1]) in merges:
                    parts[i:i + 2] = [parts[i] + parts[i + 1]]
                    joined = True
                    break
        return parts
    return encode_bytes


@wrong("encode_bytes", "looks up the joined bytes")
def encode_bytes_ranking_joined_bytes(ns):
    def encode_bytes(text, merges):
        rank = {a + b: i for i, (a, b) in enumerate(merges)}
        parts = [bytes([b]) for b in text.encode()]
        while len(parts) > 1:
            i = min(range(len(parts) - 1), key=lambda k: rank.get(parts[k] + parts[k + 1], 1e9))
            if parts[i] + parts[i + 1] not in rank:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return parts
    return encode_bytes


@wrong("encode_bytes", "goes through `merges` once")
def encode_bytes_going_through_the_merges_once(ns):
    def encode_bytes(text, merges):
        parts = [bytes([b]) for b in text.encode()]
        for a, b in merges:
            out, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == (a, b):
                    out.append(a + b)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        return parts
    return encode_bytes


@wrong("encode_bytes", "starts from the characters")
def encode_bytes_from_characters(ns):
    def encode_bytes(text, merges):
        rank = {pair: i for i, pair in enumerate(merges)}
        parts = [ch.encode() for ch in text]
        while len(parts) > 1:
            i = min(range(len(parts) - 1), key=lambda k: rank.get((parts[k], parts[k + 1]), 1e9))
            if (parts[i], parts[i + 1]) not in rank:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return parts
    return encode_bytes


@wrong("encode_bytes", KINDS["ids_for_bytes"])
def encode_bytes_returning_byte_values(ns):
    def encode_bytes(text, merges):
        rank = {pair: i for i, pair in enumerate(merges)}
        parts = [bytes([b]) for b in text.encode()]
        while len(parts) > 1:
            i = min(range(len(parts) - 1), key=lambda k: rank.get((parts[k], parts[k + 1]), 1e9))
            if (parts[i], parts[i + 1]) not in rank:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return [p[0] if len(p) == 1 else 256 + rank[p[:-1], p[-1:]] if (p[:-1], p[-1:]) in rank
                else -1 for p in parts]
    return encode_bytes


@wrong("encode_bytes", KINDS["type"])
def encode_bytes_joining_the_tokens(ns):
    right = ns["encode_bytes"]

    def encode_bytes(text, merges):
        return b"".join(right(text, merges))
    return encode_bytes


def trainer(ns, choose=None, vocab=True, stop=True, reset=True, extra=0):
    """A learner's train method: how they pick the pair, whether they keep the vocab up
    to date, stop when pairs run out, start afresh, and the merges they count."""
    get_stats, merge, best_pair = ns["get_stats"], ns["merge"], ns["best_pair"]
    choose = choose or best_pair

    def train(self, text, vocab_size, verbose=False):
        ids = list(text.encode("utf-8"))
        if reset:
            self.merges = {}
            self.vocab = {i: bytes([i]) for i in range(256)}
        for idx in range(256, vocab_size + extra):
            stats = get_stats(ids)
            if stop and not stats:
                break
            pair = choose(stats, self.vocab)
            ids = merge(ids, pair, idx)
            self.merges[pair] = idx
            if vocab:
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    return train


@wrong("basic_tokenizer", "lowest id")
def tokenizer_applying_the_latest_merge_first(ns):
    merge = ns["merge"]

    class BasicTokenizer(ns["BasicTokenizer"]):
        def encode(self, text):
            ids = list(text.encode("utf-8"))
            for pair, idx in sorted(self.merges.items(), key=lambda m: -m[1]):
                ids = merge(ids, pair, idx)
            return ids
    return BasicTokenizer


@wrong("basic_tokenizer", [KINDS["exception"], "errors='replace'"], breaks="decode")
def tokenizer_decoding_strictly(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        def decode(self, ids):
            return b"".join(self.vocab[i] for i in ids).decode("utf-8")
    return BasicTokenizer


@wrong("basic_tokenizer", "best_pair")
def tokenizer_breaking_ties_by_first_seen(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, choose=lambda stats, vocab: max(stats, key=stats.get))
    return BasicTokenizer


@wrong("basic_tokenizer", [KINDS["course_error"], "best_pair"], breaks="edge")
def tokenizer_that_does_not_stop_when_pairs_run_out(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, stop=False)
    return BasicTokenizer


@wrong("basic_tokenizer", [KINDS["course_error"], "KeyError: 256"])
def tokenizer_that_never_updates_the_vocab(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, vocab=False)
    return BasicTokenizer


@wrong("basic_tokenizer", [KINDS["shared"], "line 2 of your code: merges = {}"], breaks="state")
def tokenizer_with_class_attributes(ns, cell):
    cls = cell("class BasicTokenizer:\n"
         "    merges = {}\n"
         "    vocab = {i: bytes([i]) for i in range(256)}\n"
         "\n"
         "    def train(self, text, vocab_size, verbose=False):\n"
         "        ids = list(text.encode('utf-8'))\n"
         "        for idx in range(256, vocab_size):\n"
         "            stats = get_stats(ids)\n"
         "            if not stats:\n"
         "                break\n"
         "            pair = best_pair(stats, self.vocab)\n"
         "            ids = merge(ids, pair, idx)\n"
         "            self.merges[pair] = idx\n"
         "            self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]\n",
               ns)["BasicTokenizer"]
    base = ns["BasicTokenizer"]
    cls.encode, cls.decode = base.encode, base.decode
    return cls


@wrong("basic_tokenizer", KINDS["shared"], breaks="state")
def tokenizer_whose_train_does_not_start_afresh(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, reset=False)
    return BasicTokenizer


@wrong("basic_tokenizer", KINDS["round_trip"], breaks="decode")
def tokenizer_decoding_token_by_token(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        def decode(self, ids):
            return "".join(self.vocab[i].decode("utf-8", errors="replace") for i in ids)
    return BasicTokenizer


@wrong("basic_tokenizer", "one merge too many")
def tokenizer_counting_vocab_size_without_the_bytes(ns):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, extra=1)
    return BasicTokenizer


@wrong("basic_tokenizer", KINDS["bytes_for_ids"])
def tokenizer_encoding_to_tokens(ns):
    base = ns["BasicTokenizer"]

    class BasicTokenizer(base):
        def encode(self, text):
            return [self.vocab[i] for i in base.encode(self, text)]

        def decode(self, tokens):
            return b"".join(t if isinstance(t, bytes) else self.vocab[t]
                            for t in tokens).decode("utf-8", errors="replace")
    return BasicTokenizer


# -- answers that pass most visible cases: issue 33's learners wrote them ----------------------------

@wrong("merge", KINDS["aliased"], breaks="state")
def merge_returning_ids_when_the_pair_is_absent(ns):
    def merge(ids, pair, idx):
        if pair not in zip(ids, ids[1:]):
            return ids                                # nothing to merge: save a copy
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    return merge


@wrong("merge", "merges the ids written out as text")
def merge_by_replacing_text(ns):
    def merge(ids, pair, idx):
        text = " ".join(str(i) for i in ids)
        text = text.replace(f"{pair[0]} {pair[1]}", str(idx))
        return [int(t) for t in text.split()]
    return merge


@wrong("merge", "A list is never equal to a tuple", not_says=["very end"])
def merge_comparing_a_slice_with_the_pair(ns):
    def merge(ids, pair, idx):
        out, i = [], 0
        while i < len(ids):
            if ids[i:i + 2] == pair:                  # a list, compared with a tuple
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    return merge


@wrong("encode_bytes", "pair of highest rank first", not_says=["leftmost"])
def encode_bytes_joining_the_latest_merge_first(ns):
    def encode_bytes(text, merges):
        rank = {pair: i for i, pair in enumerate(merges)}
        parts = [bytes([b]) for b in text.encode("utf-8")]
        while True:
            found = [i for i in range(len(parts) - 1) if (parts[i], parts[i + 1]) in rank]
            if not found:
                return parts
            i = max(found, key=lambda k: rank[parts[k], parts[k + 1]])
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return encode_bytes


globals().update(wrong.tests())


# -- messages in detail ---------------------------------------------------------------------------

def test_a_course_function_raising_inside_the_learners_code_names_both(ns, fails_with):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, vocab=False)
    message = fails_with(checks.basic_tokenizer(BasicTokenizer), "KeyError: 256",
                         "of your code: pair = choose(stats, self.vocab)",
                         "the course's bpe_course.pairs.best_pair")
    assert "pairs.py" not in message


def test_training_without_the_tie_break_shows_the_first_different_merge(ns, fails_with):
    class BasicTokenizer(ns["BasicTokenizer"]):
        train = trainer(ns, choose=lambda stats, vocab: max(stats, key=stats.get))
    message = fails_with(checks.basic_tokenizer(BasicTokenizer), "tok.train('abcd', 257)")
    assert "first different merge, id 256" in message and "b'c' + b'd'" in message


def test_the_merge_in_place_case_is_code_that_runs_as_pasted(ns, cell):
    verdict = checks.merge(merge_in_place(ns, cell))
    lines = verdict.message.splitlines()
    code = "\n".join(line[4:] for line in lines[1:4])
    names = {"merge": ns["merge"]}
    exec(code.rsplit("\n", 1)[0], names)
    assert code.splitlines()[0] == "ids = [1, 2, 3]" and names["result"] == [256, 3]
