"""Worksheet 12, the subword family: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import ast
import math
import unicodedata
from fractions import Fraction

from bpe_course import checks, corpora
from bpe_course.classroom.checking import references, runner
from bpe_course.classroom.checking.diagnosis import KINDS
from bpe_course.classroom.worksheets import CHECKERS, groups_for, ws12

from .corpus import Corpus

WORKSHEET = "12_subword_family"
META = "\u2581"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET, per_exercise=7)


# Exercise 1: viterbi

def backtrack(text, start_of, stop=0):
    pieces, end = [], len(text)
    while end > stop:
        pieces.append(text[start_of[end]:end])
        end = start_of[end]
    return pieces[::-1]


@wrong("viterbi", "greedy longest match")
def viterbi_greedy_longest_match(ns):
    def viterbi(text, scores):
        unknown = min(scores.values()) - 10
        pieces, total, start = [], 0.0, 0
        while start < len(text):
            for end in range(len(text), start, -1):      # the longest piece that fits
                if text[start:end] in scores:
                    pieces.append(text[start:end])
                    total += scores[text[start:end]]
                    break
            else:
                end = start + 1
                pieces.append(text[start])
                total += unknown
            start = end
        return pieces, total
    return viterbi


# Each of its cases on real text runs until its deadline (0.1 s here, 30 s in a worksheet): no
# timing decides the test, since a case that times out, under load or not, is one that hangs.
@wrong("viterbi", KINDS["hangs"], breaks="hangs", time_limit=0.1)
def viterbi_trying_every_segmentation(ns):
    def viterbi(text, scores):
        unknown = min(scores.values()) - 10
        if not text:
            return [], 0.0
        best = None
        for start in range(len(text)):            # every last piece, longest first, then recurse
            piece = text[start:]
            score = scores.get(piece, unknown if start == len(text) - 1 else None)
            if score is None:
                continue
            rest, rest_total = viterbi(text[:start], scores)
            if best is None or rest_total + score > best[1]:
                best = (rest + [piece], rest_total + score)
        return best
    return viterbi


@wrong("viterbi", "best[start] + the piece's score")
def viterbi_scoring_the_last_piece_only(ns):
    def viterbi(text, scores):
        unknown = min(scores.values()) - 10
        best = [0.0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                score = scores.get(text[start:end], unknown if end == start + 1 else None)
                if score is not None and (best[end] is None or score > best[end]):
                    best[end], start_of[end] = score, start      # forgot best[start]
        pieces = backtrack(text, start_of)
        return pieces, sum(scores.get(p, unknown) for p in pieces)
    return viterbi


@wrong("viterbi", "Multiplying probabilities underflows")
def viterbi_multiplying_probabilities(ns):
    def viterbi(text, scores):
        unknown = math.exp(min(scores.values()) - 10)
        probs = {p: math.exp(s) for p, s in scores.items()}
        best = [1.0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                p = probs.get(text[start:end], unknown if end == start + 1 else None)
                if p is not None and (best[end] is None or best[start] * p > best[end]):
                    best[end], start_of[end] = best[start] * p, start
        return backtrack(text, start_of), math.log(best[len(text)])
    return viterbi


def left_to_right(unknown_rule="alone", tie=">", stop=0, merge_unknown=False, mutate=False):
    """A learner's Viterbi, left to right, with one rule of their own."""
    def viterbi(text, scores):
        low = min(scores.values())
        unknown = {"alone": low - 10, "zero": 0.0, "minus_ten": -10.0}.get(unknown_rule)
        best = [0.0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            if best[start] is None:
                if unknown_rule == "skip":               # an unknown character: step over it
                    best[start], start_of[start] = best[start - 1], start_of[start - 1]
                    continue
                continue
            found = False
            for end in range(start + 1, len(text) + 1):
                piece = text[start:end]
                if piece in scores:
                    score = scores[piece]
                    found = True
                elif end == start + 1 and unknown is not None and unknown_rule != "nothing":
                    if mutate:
                        scores[piece] = unknown              # remember the unknown piece
                    score = unknown
                else:
                    continue
                if merge_unknown and piece not in scores:
                    stop_at = end
                    while stop_at < len(text) and text[stop_at] not in scores:
                        stop_at += 1
                    end, piece = stop_at, text[start:stop_at]
                total = best[start] + score
                if best[end] is None or total > best[end] or (tie == ">=" and total == best[end]):
                    best[end], start_of[end] = total, start
            if unknown_rule == "nothing" and not found:   # unknown only where nothing starts
                total = best[start] + low - 10
                if best[start + 1] is None or total > best[start + 1]:
                    best[start + 1], start_of[start + 1] = total, start
        if best[len(text)] is None:
            return [], 0.0
        return backtrack(text, start_of, stop), best[len(text)]
    return viterbi


@wrong("viterbi", "same total as the expected one: on a tie")
def viterbi_breaking_ties_the_other_way(ns):
    return left_to_right(tie=">=")


@wrong("viterbi", "unknown characters were dropped")
def viterbi_dropping_unknown_characters(ns):
    def viterbi(text, scores):
        best = [0.0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            if best[start] is None:
                continue
            for end in range(start + 1, len(text) + 1):
                piece = text[start:end]
                if piece in scores and (best[end] is None or
                                        best[start] + scores[piece] > best[end]):
                    best[end], start_of[end] = best[start] + scores[piece], start
            if text[start] not in scores and (best[start + 1] is None or
                                              best[start] > best[start + 1]):
                best[start + 1], start_of[start + 1] = best[start], start   # skip it
        pieces = [p for p in backtrack(text, start_of) if p in scores]
        return pieces, best[len(text)]
    return viterbi


@wrong("viterbi", "a run of unknown characters became one piece")
def viterbi_merging_unknown_runs(ns):
    return left_to_right(merge_unknown=True)


@wrong("viterbi", "an unknown character was scored 0")
def viterbi_scoring_unknowns_zero(ns):
    return left_to_right(unknown_rule="zero")


@wrong("viterbi", "an unknown character was scored -10")
def viterbi_scoring_unknowns_minus_ten(ns):
    return left_to_right(unknown_rule="minus_ten")


@wrong("viterbi", "allowed only where no piece starts", breaks="edge")
def viterbi_with_unknowns_only_where_nothing_starts(ns):
    return left_to_right(unknown_rule="nothing")


@wrong("viterbi", "without its beginning")
def viterbi_stopping_the_backtrack_at_one(ns):
    return left_to_right(stop=1)


@wrong("viterbi", KINDS["mutated"])
def viterbi_adding_unknowns_to_the_scores(ns):
    return left_to_right(mutate=True)


@wrong("viterbi", KINDS["type"])
def viterbi_returning_the_pieces_alone(ns):
    def viterbi(text, scores):
        return ns["viterbi"](text, scores)[0]
    return viterbi


@wrong("viterbi", "fewest pieces")
def viterbi_with_the_fewest_pieces(ns):
    def viterbi(text, scores):
        unknown = min(scores.values()) - 10
        count = [0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                if (text[start:end] in scores or end == start + 1) and (
                        count[end] is None or count[start] + 1 < count[end]):
                    count[end], start_of[end] = count[start] + 1, start
        pieces = backtrack(text, start_of)
        return pieces, sum(scores.get(p, unknown) for p in pieces)
    return viterbi


# Exercise 2: wordpiece

def cutter(order="longest", first="", rest="##", unknown="word", measure="chars", over=">",
           strip=False):
    """A learner's WordPiece with one rule of their own."""
    def wordpiece(word, vocab, max_input_chars_per_word=100):
        size = len(word.encode("utf-8")) if measure == "bytes" else len(word)
        if (over == ">" and size > max_input_chars_per_word) or (
                over == ">=" and size >= max_input_chars_per_word):
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            ends = range(len(word), start, -1) if order == "longest" else range(
                start + 1, len(word) + 1)
            for end in ends:
                piece = (first if start == 0 else rest) + word[start:end]
                if piece in vocab:
                    break
            else:
                if unknown == "part":
                    return pieces + ["[UNK]"]
                if unknown == "char":
                    pieces.append("[UNK]")
                    start += 1
                    continue
                return ["[UNK]"]
            pieces.append(piece[2:] if strip and piece.startswith("##") else piece)
            start = end
        return pieces
    return wordpiece


@wrong("wordpiece", "shortest match first")
def wordpiece_shortest_match(ns):
    return cutter(order="shortest")


@wrong("wordpiece", "the first piece got '##' too")
def wordpiece_with_a_prefix_on_the_first_piece(ns):
    return cutter(first="##")


@wrong("wordpiece", "have no '##'")
def wordpiece_without_the_prefix(ns):
    return cutter(rest="")


@wrong("wordpiece", "'##' was taken off the pieces")
def wordpiece_stripping_the_prefix(ns):
    return cutter(strip=True)


@wrong("wordpiece", "only the part that no piece fits became '[UNK]'")
def wordpiece_unknown_for_the_failing_part(ns):
    return cutter(unknown="part")


@wrong("wordpiece", "a character that no piece fits became '[UNK]' and the cut went on")
def wordpiece_unknown_character_and_go_on(ns):
    return cutter(unknown="char")


@wrong("wordpiece", "counted in UTF-8 bytes", breaks="contract")
def wordpiece_limit_in_bytes(ns):
    return cutter(measure="bytes")


@wrong("wordpiece", "a word of exactly max_input_chars_per_word", breaks="edge")
def wordpiece_unknown_at_the_limit(ns):
    return cutter(over=">=")


@wrong("wordpiece", "the limit was ignored", breaks="contract")
def wordpiece_without_a_limit(ns):
    return cutter(over="never")


# Each case with an unknown character runs until its deadline (0.1 s here, as above).
@wrong("wordpiece", KINDS["hangs"], breaks="hangs", time_limit=0.1)
def wordpiece_that_never_gives_up(ns):
    def wordpiece(word, vocab, max_input_chars_per_word=100):
        if len(word) > max_input_chars_per_word:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            while end > start and piece not in vocab:
                end -= 1
                piece = word[start:end] if start == 0 else "##" + word[start:end]
            if end > start:                       # nothing fits: try again (forever)
                pieces.append(piece)
                start = end
        return pieces
    return wordpiece


@wrong("wordpiece", "going back to shorter pieces")
def wordpiece_going_back(ns):
    def wordpiece(word, vocab, max_input_chars_per_word=100):
        if len(word) > max_input_chars_per_word:
            return ["[UNK]"]

        def cut(start):                           # longest first, but try shorter on a dead end
            if start == len(word):
                return []
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    rest = cut(end)
                    if rest is not None:
                        return [piece] + rest
            return None
        return cut(0) or (["[UNK]"] if word else [])
    return wordpiece


# Exercise 3: bert_normalize

def normalizer(form="NFD", marks="Mn", tabs="space", whitespace="bert", fffd=True,
               controls=("Cc", "Cf", "Co"), cjk="bert", lower="char", strip_cased=False):
    """A learner's BERT normalizer with one rule of their own."""
    ranges = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
              (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))

    def is_cjk(c):
        if cjk == "main":
            return 0x4E00 <= ord(c) <= 0x9FFF
        if cjk == "name":
            return unicodedata.name(c, "").startswith("CJK")
        if cjk == "east_asian":
            return unicodedata.name(c, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))
        return cjk == "bert" and any(low <= ord(c) <= high for low, high in ranges)

    def bert_normalize(text, lowercase=True):
        out = []
        for c in text:
            category = unicodedata.category(c)
            if whitespace == "isspace" and c.isspace():
                out.append(" ")
            elif whitespace == "zs" and (c in " \t\n\r" or category == "Zs"):
                out.append(" ")
            elif whitespace == "bert" and (c in "\t\n\r" and tabs == "space"
                                          or category in ("Zs", "Zl", "Zp")):
                out.append(" ")
            elif c == "\x00" or (fffd and c == "\ufffd") or category in controls:
                continue
            elif is_cjk(c):
                out.append(" " + c + " ")
            else:
                out.append(c)
        text = "".join(out)
        if lowercase or strip_cased:
            if form:
                text = unicodedata.normalize(form, text)
            text = "".join(c for c in text if not unicodedata.category(c).startswith(marks))
        if lowercase:
            text = text.lower() if lower == "text" else text.casefold() \
                if lower == "casefold" else "".join(c.lower() for c in text)
        return text
    return bert_normalize


@wrong("bert_normalize", "NFKD also replaces compatibility characters")
def normalize_with_nfkd(ns):
    return normalizer(form="NFKD")


@wrong("bert_normalize", "accents written as one character")
def normalize_without_decomposing(ns):
    return normalizer(form="")


@wrong("bert_normalize", "every mark was dropped")
def normalize_dropping_every_mark(ns):
    return normalizer(marks="M")


@wrong("bert_normalize", "whole text was lowercased at once")
def normalize_lowering_the_whole_text(ns):
    return normalizer(lower="text")


@wrong("bert_normalize", "casefold() is not lowercase")
def normalize_with_casefold(ns):
    return normalizer(lower="casefold")


@wrong("bert_normalize", "dropped as control characters")
def normalize_dropping_tabs_and_newlines(ns):
    return normalizer(tabs="drop")


@wrong("bert_normalize", "str.isspace() is not BERT's whitespace", breaks="edge")
def normalize_with_isspace(ns):
    return normalizer(whitespace="isspace")


@wrong("bert_normalize", "U+2028 and U+2029", breaks="edge")
def normalize_with_bert_pythons_whitespace(ns):
    return normalizer(whitespace="zs", controls=("Cc", "Cf", "Co", "Cn", "Cs"))


@wrong("bert_normalize", "U+FFFD (the replacement character) is dropped too", breaks="edge")
def normalize_keeping_the_replacement_character(ns):
    return normalizer(fffd=False)


@wrong("bert_normalize", "format characters were kept")
def normalize_dropping_only_cc(ns):
    return normalizer(controls=("Cc",))


@wrong("bert_normalize", "only U+4E00-9FFF got spaces", breaks="edge")
def normalize_spacing_the_main_block_only(ns):
    return normalizer(cjk="main")


@wrong("bert_normalize", "whose name starts with 'CJK'", breaks="edge")
def normalize_spacing_by_name(ns):
    return normalizer(cjk="name")


@wrong("bert_normalize", "kana or Hangul got spaces")
def normalize_spacing_kana_and_hangul(ns):
    return normalizer(cjk="east_asian")


@wrong("bert_normalize", "CJK ideographs need a space on each side")
def normalize_without_cjk_spaces(ns):
    return normalizer(cjk="none")


@wrong("bert_normalize", "with lowercase=False the accents stay")
def normalize_stripping_cased_text(ns):
    return normalizer(strip_cased=True)


# -- a message that used to name another mistake ------------------------------------------------------

@wrong("viterbi", "scores were multiplied, not added", not_says=["fewest pieces"])
def viterbi_multiplying_the_scores(ns):
    def viterbi(text, scores):
        unknown = min(scores.values()) - 10
        best = [1.0] + [None] * len(text)
        start_of = [0] * (len(text) + 1)
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                score = scores.get(text[start:end], unknown if end == start + 1 else None)
                if score is not None and best[start] is not None and (
                        best[end] is None or best[start] * score > best[end]):
                    best[end], start_of[end] = best[start] * score, start
        return backtrack(text, start_of), best[len(text)]
    return viterbi


globals().update(wrong.tests(every_seed=wrong.exercises))


# -- the references against the libraries, on every case ------------------------------------------

SEEDS = (1, 2, 3)


def every_case(name, seeds=SEEDS):
    """(group, case, the reference's answer) for every case of checker `name`, the
    worksheet's and those drawn for `seeds`, run as the checker runs them."""
    checker = CHECKERS[name]
    seen = set()
    for seed in seeds:
        for group in groups_for(checker, seed):
            if id(group) in seen:
                continue
            seen.add(id(group))
            plain = {"env": group.env, "setup": group.setup,
                     "cases": [c.code for c in group.cases]}
            answers = runner.run_group(checker.target, checker.reference(), plain)
            for case, (answer, _) in zip(group.cases, answers):
                yield group, case, answer


def arguments(code, env, name):
    """The arguments of the (last) call of `name` in a case's code, evaluated."""
    namespace = dict(env)
    tree = ast.parse(code)
    for line in tree.body[:-1]:
        if name in ast.unparse(line):            # `result = viterbi(...)`: not an input
            continue
        exec(compile(ast.Module([line], []), "<case>", "exec"), namespace)   # noqa: S102
    call = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == name][-1]
    return [eval(ast.unparse(arg), namespace) for arg in call.args]   # noqa: S307


def test_viterbi_equals_the_course_unigram_and_sums_exactly_on_every_case():
    from bpe_course.sentencepiece.model_proto import NORMAL, UNKNOWN, write_model
    from bpe_course.sentencepiece.unigram import SentencePieceUnigram
    checked = 0
    for group, case, answer in every_case("viterbi"):
        if case.probe:                           # the probe of the input: its answer is a pair
            answer = answer[0]
        text, scores = arguments(case.code, group.env, "viterbi")
        pieces, total = answer
        assert "".join(pieces) == text
        exact = sum((Fraction(scores.get(p, min(scores.values()) - 10)) for p in pieces),
                    Fraction(0))
        assert Fraction(total) == exact, case.code          # the float total is exact
        model = SentencePieceUnigram.from_bytes(write_model(
            [("<unk>", 0.0, UNKNOWN)] + [(p, s, NORMAL) for p, s in scores.items()],
            {"model_type": 1}))
        assert [p for p, _ in model.segment(text)] == pieces, case.code
        checked += 1
    assert checked > 100


def test_viterbi_equals_the_sentencepiece_library_on_the_real_model():
    import sentencepiece as spm

    from bpe_course.sentencepiece.unigram_trainer import save_unigram_model, train_unigram
    library = spm.SentencePieceProcessor(model_proto=save_unigram_model(
        train_unigram(corpora.prose()[:20_000], 400)))
    scores = ws12.unigram_scores(0, 20_000, 400)
    page = corpora.prose()[20_000:21_000]
    for text in ["the tokenizer learns", "naïve café", "Hello, world! 1234567",
                 " ".join(page.split()), " ".join(corpora.SAMPLES.values()).replace("\n", " ")]:
        pieces, _ = references.viterbi(META + META.join(text.split()), scores)
        ids = []
        for piece in pieces:                      # the library writes a run of unknowns as one
            i = library.piece_to_id(piece) if piece in scores else library.unk_id()
            if not (ids and i == ids[-1] == library.unk_id()):
                ids.append(i)
        assert ids == library.encode(" ".join(text.split())), text


def test_wordpiece_equals_the_tokenizers_library_on_every_case():
    from tokenizers.models import WordPiece
    checked = 0
    for group, case, answer in every_case("wordpiece"):
        namespace = dict(group.env)

        def wordpiece(word, vocab, max_input_chars_per_word=100):
            ids = {piece: i for i, piece in enumerate(sorted(set(vocab) | {"[UNK]"}))}
            model = WordPiece(ids, unk_token="[UNK]",
                              max_input_chars_per_word=max_input_chars_per_word)
            return [token.value for token in model.tokenize(word)] if word else []
        namespace["wordpiece"] = wordpiece
        assert runner.run_code(case.code, namespace) == answer, case.code
        checked += 1
    assert checked > 60


def test_bert_normalize_equals_the_tokenizers_library_on_every_case():
    from tokenizers.normalizers import BertNormalizer
    checked = 0
    for group, case, answer in every_case("bert_normalize"):
        namespace = dict(group.env)
        namespace["bert_normalize"] = lambda text, lowercase=True: BertNormalizer(
            lowercase=lowercase).normalize_str(text)
        assert runner.run_code(case.code, namespace) == answer, case.code
        checked += 1
    assert checked > 80


def test_every_character_of_the_normalizer_cases_agrees_with_this_pythons_unicodedata(ns):
    # tokenizers reads Unicode 8.0; a learner's unicodedata is newer. The solution, written
    # with unicodedata, equals the reference on every character the cases can hold (on
    # every Python the course supports, as tox runs this test on each).
    texts = set(ws12.ORDINARY + ws12.RARE + "".join(corpora.SAMPLES.values())
                + corpora.prose())
    for group, case, _ in every_case("bert_normalize"):
        texts |= set(arguments(case.code, group.env, "bert_normalize")[0])
    for c in sorted(texts):
        for lowercase in (True, False):
            assert ns["bert_normalize"](c, lowercase) == references.bert_normalize(
                c, lowercase), (hex(ord(c)), lowercase)


# -- messages in detail -------------------------------------------------------------------------------

def test_a_recursive_viterbi_with_memory_passes(cell):
    learner = cell('''
import functools

def viterbi(text, scores):
    unknown = min(scores.values()) - 10

    @functools.lru_cache(maxsize=None)
    def best(end):                       # the best segmentation of text[:end]
        if end == 0:
            return (), 0.0
        found = None
        for start in range(end):
            piece = text[start:end]
            score = scores.get(piece, unknown if end == start + 1 else None)
            if score is None:
                continue
            pieces, total = best(start)
            if found is None or total + score > found[1]:
                found = (pieces + (piece,), total + score)
        return found
    for end in range(len(text) + 1):     # fill the cache from the left: no deep recursion
        best(end)
    pieces, total = best(len(text))
    return list(pieces), total
''')
    assert checks.viterbi(learner["viterbi"]).passed


def test_a_wordpiece_over_a_dict_vocabulary_is_the_same(ns):
    assert ns["wordpiece"]("unaffable", {"un": 1, "##aff": 2, "##able": 3}) == \
        ["un", "##aff", "##able"]


def test_lowercasing_before_or_after_stripping_accents_gives_the_same_text():
    # Why the worksheet has no case for the order of steps 3 and 4: character by character
    # it never matters (the whole text lowercased at once does: a final sigma).
    def strip(text):
        return "".join(c for c in unicodedata.normalize("NFD", text)
                       if unicodedata.category(c) != "Mn")
    differ = [hex(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF
              and strip(chr(code).lower()) != strip(chr(code)).lower()]
    assert differ == []
