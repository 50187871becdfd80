"""train_wordpiece: each merge is the pair with the best score count(ab) / (count(a) count(b))
at its step, the vocabulary loads in `WordPiece`, and the score picks other merges than BPE."""

from collections import Counter
from fractions import Fraction

import pytest

from bpe_course import WordPiece, corpora, train_wordpiece
from bpe_course.wordpiece.trainer import SPECIAL_TOKENS, count_words, join, learn_merges, spell

HF_COURSE = ("This is the Hugging Face Course.\nThis chapter is about tokenization.\n"
             "This section shows several tokenizer algorithms.\n"
             "Hopefully, you will be able to understand how they are trained and generate "
             "tokens.\n")


def reference_scores(splits: dict[str, list[str]], words: Counter, criterion: str):
    """Every pair's score, counted from scratch as the Hugging Face course does."""
    token_count, pair_count = Counter(), Counter()
    for word, split in splits.items():
        for token in split:
            token_count[token] += words[word]
        for pair in zip(split, split[1:]):
            pair_count[pair] += words[word]
    if criterion == "frequency":
        return {pair: Fraction(n) for pair, n in pair_count.items()}
    return {pair: Fraction(n, token_count[pair[0]] * token_count[pair[1]])
            for pair, n in pair_count.items()}


def apply(split: list[str], left: str, right: str) -> list[str]:
    out, i = [], 0
    while i < len(split):
        if i + 1 < len(split) and (split[i], split[i + 1]) == (left, right):
            out.append(join(left, right))
            i += 2
        else:
            out.append(split[i])
            i += 1
    return out


@pytest.mark.parametrize("criterion", ["likelihood", "frequency"])
def test_every_merge_is_the_best_scored_pair_at_its_step(criterion):
    words = count_words(corpora.prose()[:6_000])
    merges = learn_merges(words, 120, criterion)
    assert len(merges) >= 120
    splits = {word: spell(word) for word in words}
    for step, (left, right, score) in enumerate(merges):
        scores = reference_scores(splits, words, criterion)
        best = max(scores.values())
        assert score == scores[(left, right)] == best, step
        # a tie goes to the greatest (left, right)
        assert (left, right) == max(pair for pair, s in scores.items() if s == best), step
        splits = {word: apply(split, left, right) for word, split in splits.items()}


def test_the_hugging_face_course_example():
    words = count_words(HF_COURSE, lowercase=False)
    assert words["This"] == 3 and words["."] == 4
    left, right, score = learn_merges(words, 1)[0]
    assert (left, right, score) == ("a", "##b", Fraction(1, 5))   # the course's first merge
    vocab = train_wordpiece(HF_COURSE, 70, lowercase=False)
    assert len(vocab) == 70 and "ab" in vocab and "##fully" in vocab


def test_score_and_frequency_pick_different_first_merges():
    words = count_words(corpora.prose()[:20_000])
    by_score = [join(a, b) for a, b, _ in learn_merges(words, 10, "likelihood")]
    by_count = [join(a, b) for a, b, _ in learn_merges(words, 10, "frequency")]
    assert by_count[:2] == ["th", "the"]
    assert not set(by_score) & set(by_count)
    # the score favours pairs whose parts are rare on their own
    counts = Counter()
    for word, n in words.items():
        for token in spell(word):
            counts[token] += n
    (a, b, _), (c, d, _) = learn_merges(words, 1)[0], learn_merges(words, 1, "frequency")[0]
    assert (a, b, c, d) == ("##8", "##4", "t", "##h")
    assert counts[a] * counts[b] < counts[c] * counts[d] / 1000


def test_the_vocabulary_loads_and_spells_every_training_word():
    text = corpora.prose()[:10_000]
    vocab = train_wordpiece(text, 250)
    assert len(vocab) == 250 and list(vocab)[:5] == list(SPECIAL_TOKENS)
    assert sorted(vocab.values()) == list(range(250))
    assert vocab == train_wordpiece(text, 250)                        # deterministic
    wp = WordPiece(vocab)
    for word in count_words(text):
        assert "[UNK]" not in wp.tokenize_word(word), word
    ids = wp.encode("Assert statements are a convenient way")
    assert wp.decode(ids) == "assert statements are a convenient way"


def test_a_small_text_runs_out_of_pairs():
    vocab = train_wordpiece("ab ab", 100)
    assert list(vocab) == [*SPECIAL_TOKENS, "##b", "a", "ab"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="smaller than"):
        train_wordpiece("hello world", 5)
    with pytest.raises(ValueError, match="criterion"):
        train_wordpiece("hello world", 50, criterion="count")
    with pytest.raises(TypeError):
        train_wordpiece(b"hello", 50)
