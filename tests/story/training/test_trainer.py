"""train_bpe: the same merges as the naive loop, special tokens, workers, errors.

The reference is the course's naive loop: `RegexTokenizer.train` where there
are no special tokens, and otherwise the same loop (`get_stats`, `merge`,
`best_pair`) over the chunks of the pieces that `special.split_special` leaves
between special tokens, which is what "never counted, never merged across"
means. How the corpus is cut and counted is tested in `test_corpus_cuts` and
`test_counting`.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    RegexTokenizer,
    corpora,
    load,
    to_tiktoken,
    train_bpe,
)
from bpe_course.classroom.checking.references import naive_train_bpe
from bpe_course.training.corpus_cuts import file_cut_points
from bpe_course.training.trainer import train, train_into

EOT = "<|endoftext|>"


def naive_merges(text, vocab_size, specials=(), pattern=GPT4_SPLIT_PATTERN):
    """The naive loop over the chunks of the text between special tokens, as bytes pairs."""
    return naive_train_bpe(text, vocab_size, specials, pattern)[1]


def regex_tokenizer_merges(text, vocab_size, pattern=None):
    """RegexTokenizer.train's merges, as bytes pairs in order."""
    tok = RegexTokenizer(pattern)
    tok.train(text, vocab_size)
    return [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in sorted(tok.merges.items(),
                                                                 key=lambda item: item[1])]


# -- the same merges as the naive loop -----------------------------------------

@pytest.mark.parametrize("text", [corpora.prose()[:30_000], corpora.python_code(300_000)[-30_000:]],
                         ids=["prose", "code"])
def test_train_bpe_learns_the_merges_of_regex_tokenizer_train(text):
    _, merges = train_bpe(text, 400)
    assert merges == regex_tokenizer_merges(text, 400)


@pytest.mark.parametrize("pattern", [GPT4O_SPLIT_PATTERN, GPT2_SPLIT_PATTERN], ids=["gpt4o", "gpt2"])
def test_train_bpe_learns_the_same_merges_with_other_patterns(pattern):
    text = corpora.python_code(300_000)[:12_000] + corpora.SAMPLES["German"] * 3
    _, merges = train_bpe(text, 320, pattern=pattern)
    assert merges == regex_tokenizer_merges(text, 320, pattern)


def test_a_pattern_of_your_own_is_counted_exactly_without_line_cuts(tmp_path):
    pattern = r"\w+|[^\w\s]+|\s+"
    text = corpora.prose()[:12_000]
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    assert file_cut_points(path, 1000, [], pattern) == [0, len(text.encode())]
    expected = regex_tokenizer_merges(text, 320, pattern)
    assert train_bpe(path, 320, pattern=pattern, num_workers=2, chunk_bytes=1000)[1] == expected


ADVERSARIAL = {
    "many equal counts": " ".join(f"{a}{b}" for a in "abcdefghij" for b in "klmnopqrst"),
    "long runs of one character": "a" * 3001 + " " + "a" * 1000 + "b" * 777 + "\n" * 50,
    "every count is one": "".join(chr(0x4E00 + 7 * i) for i in range(300)),
    "overlapping pairs": "aaaa aaa aa a abab ababab aabb " * 20,
    "spaces and newlines": "  \n \n\n   x \t\n\r\n  " * 30,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_train_bpe_matches_the_naive_loop_on_adversarial_text(name):
    text = ADVERSARIAL[name]
    _, merges = train_bpe(text, 350)
    assert merges == regex_tokenizer_merges(text, 350)


def test_train_bpe_matches_the_naive_loop_with_many_special_tokens():
    specials = [EOT, "<|a|>", "<|a|><|b|>", "<|b|>"]
    docs = corpora.prose()[:8000].split("\n")
    text = "".join(doc + specials[i % 4] for i, doc in enumerate(docs))
    _, merges = train_bpe(text, 330, specials)
    assert merges == naive_merges(text, 330, specials)


@settings(max_examples=50, deadline=None)
@given(text=st.lists(st.sampled_from(list("ab c\n\t'sS9.é") + ["ab", "  ", EOT, "\r\n", "🦊"]),
                    max_size=60).map("".join),
       merges=st.integers(0, 30), use_special=st.booleans())
def test_train_bpe_matches_the_naive_loop_on_random_text(text, merges, use_special):
    specials = [EOT] if use_special else []
    vocab_size = 256 + merges + len(specials)
    _, learned = train_bpe(text, vocab_size, specials)
    assert learned == naive_merges(text, vocab_size, specials)


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text("ab", min_size=1, max_size=9), min_size=1, max_size=30),
       merges=st.integers(1, 30))
def test_words_of_two_letters_merge_as_in_the_naive_loop(words, merges):
    # Pairs that occur twice in a word, overlap ("aaa") or sit side by side ("abab"), and
    # words that an earlier merge took the pair out of: merge_pair's rarer paths.
    text = " ".join(words)
    assert train_bpe(text, 256 + merges)[1] == naive_merges(text, 256 + merges)


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.text("abc", min_size=1, max_size=40), min_size=1, max_size=12),
       merges=st.integers(1, 40))
def test_long_words_that_hold_a_pair_many_times_merge_as_in_the_naive_loop(words, merges):
    # merge_pair cuts such a word at every occurrence and looks only at the tokens next
    # to the cuts: pieces between them of any length, empty ones ("abab") included.
    text = " ".join(words)
    assert train_bpe(text, 256 + merges)[1] == naive_merges(text, 256 + merges)


def test_lone_surrogates_are_replaced_as_in_the_naive_loop():
    text = "ab\ud800ab \udfffab"
    assert train_bpe(text, 270)[1] == regex_tokenizer_merges(text, 270)


# -- special tokens and vocab_size -----------------------------------------------

def test_special_tokens_are_never_counted_or_merged_across():
    text = ("<|x|>ab" * 50) + "<|x|>"
    vocab, merges = train_bpe(text, 300, ["<|x|>"])
    assert merges == [(b"a", b"b")]            # "<|x|>" itself is not counted
    assert vocab[257] == b"<|x|>" and len(vocab) == 258


def test_no_learned_token_contains_a_special_token():
    specials = [EOT, "<|pad|>"]
    text = "".join(f"Story {i}: the cat sat.{specials[i % 2]}" for i in range(200))
    vocab, _ = train_bpe(text, 400, specials)
    learned = [t for i, t in vocab.items() if 256 <= i < 400 - len(specials)]
    assert not any(s.encode() in t for t in learned for s in specials)
    assert not any(t.startswith(b".<") or t.endswith(b"<|") for t in learned)


def test_special_tokens_get_the_ids_after_the_merges():
    vocab, merges = train_bpe("hello world " * 10, 256 + 5 + 2, ["<|a|>", "<|b|>"])
    assert len(merges) == 5
    assert vocab[261] == b"<|a|>" and vocab[262] == b"<|b|>"
    assert sorted(vocab) == list(range(263))
    assert all(vocab[256 + i] == a + b for i, (a, b) in enumerate(merges))


def test_vocab_size_counts_bytes_merges_and_special_tokens():
    vocab, merges = train_bpe(corpora.prose()[:5000], 300, [EOT])
    assert len(vocab) == 300 and len(merges) == 300 - 256 - 1


def test_training_stops_early_when_no_pair_is_left():
    vocab, merges = train_bpe("abc", 1000, [EOT])
    assert merges == [(b"b", b"c"), (b"a", b"bc")]
    assert vocab[258] == EOT.encode() and len(vocab) == 259


def test_an_empty_special_token_list_does_not_split_the_text():
    assert train_bpe("aaa|aaa", 258, [])[1] == [(b"a", b"a"), (b"aa", b"a")]


# -- workers -------------------------------------------------------------------------

def test_one_and_two_workers_give_the_same_result(tmp_path):
    path = tmp_path / "corpus.txt"
    text = corpora.prose()[:60_000].replace("\n\n\n", EOT)
    path.write_text(text, encoding="utf-8")
    one = train_bpe(path, 600, [EOT], num_workers=1, chunk_bytes=5000)
    two = train_bpe(path, 600, [EOT], num_workers=2, chunk_bytes=5000)
    assert one == two == train_bpe(text, 600, [EOT], num_workers=1)


# -- input, errors -------------------------------------------------------------

def test_a_str_naming_a_file_reads_it_and_other_strs_are_text(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("xyxyxy", encoding="utf-8")
    assert train_bpe(str(path), 257)[1] == [(b"x", b"y")]
    assert train_bpe(path, 257)[1] == [(b"x", b"y")]
    assert train_bpe("ab" * 50 + "\n" + str(path), 257)[1] == [(b"a", b"b")]   # text


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no corpus file"):
        train_bpe(tmp_path / "missing.txt", 300)
    with pytest.raises(ValueError, match="at least 257"):
        train_bpe("text", 256, [EOT])
    with pytest.raises(TypeError, match="list of strings"):
        train_bpe("text", 300, EOT)
    with pytest.raises(ValueError, match="repeated"):
        train_bpe("text", 300, [EOT, EOT])
    with pytest.raises(ValueError, match="num_workers"):
        train_bpe("text", 300, num_workers=0)
    with pytest.raises(TypeError, match="path or a str"):
        train_bpe(b"bytes", 300)


def test_a_file_that_is_not_utf8_names_the_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"hello\n" * 100 + "café".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8.*offset 603"):
        train_bpe(path, 300)
    with pytest.raises(ValueError, match="offset 603"):
        train_bpe(path, 300, num_workers=2, chunk_bytes=50)


def test_nothing_is_printed_unless_verbose(capsys):
    train_bpe("hello world", 260)
    assert capsys.readouterr() == ("", "")
    train_bpe("hello world", 260, verbose=True)
    assert "merging" in capsys.readouterr().err


# -- through RegexTokenizer --------------------------------------------------------

def test_a_fast_trained_tokenizer_saves_loads_encodes_and_exports(tmp_path):
    text = corpora.prose()[:20_000] + EOT + corpora.SAMPLES["Code"]
    vocab, merges = train_bpe(text, 400, [EOT])
    tok = RegexTokenizer.from_merges(merges, [EOT])
    assert tok.vocab == vocab
    other = RegexTokenizer()
    train_into(other, text, 400, [EOT])
    assert other.merges == tok.merges and other.special_tokens == tok.special_tokens
    tok.save(tmp_path / "fast")
    loaded = load(tmp_path / "fast.model")
    sample = "The quick brown fox" + EOT + "def f(): pass"
    ids = loaded.encode(sample, allowed_special="all")
    assert ids == tok.encode(sample, allowed_special="all")
    assert loaded.decode(ids) == sample
    assert to_tiktoken(loaded).encode(sample, allowed_special="all") == ids


def test_the_token_count_of_training_equals_encoding_the_corpus():
    text = corpora.prose()[:20_000]
    result = train(text, 400, [], GPT4_SPLIT_PATTERN)
    tok = RegexTokenizer()
    train_into(tok, text, 400)
    assert result.text_tokens == len(tok.encode_ordinary(text))
    assert result.text_bytes == len(text.encode("utf-8"))


def test_from_merges_rejects_merges_of_unknown_tokens():
    with pytest.raises(ValueError, match="no earlier merge"):
        RegexTokenizer.from_merges([(b"ab", b"c")])
