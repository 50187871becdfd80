"""`load_tokenizer_json` equals Hugging Face `tokenizers` on every kind of `tokenizer.json`:
the same ids, tokens and offsets (character spans of the original text, through
normalization), and the same decoding.

Each file is built and trained by the `tokenizers` library itself, offline, once per
session (`files`): BERT's WordPiece pipeline (with TemplateProcessing and with
BertProcessing), a RoBERTa/GPT-2 byte-level BPE, T5/ALBERT-style Unigrams behind Metaspace
(one with SentencePiece's compiled rules, one with NFKC + Replace), a BPE with a
continuing-subword prefix and an end-of-word suffix, a Llama-style BPE with byte fallback,
and a BPE behind a Sequence of Split, Digits and Punctuation pre-tokenizers; each with
added tokens, special or not, normalized or not.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_course import corpora, load_tokenizer_json

tokenizers = pytest.importorskip("tokenizers")
from hf_models import byte_fallback_bpe  # noqa: E402
from tokenizers import (  # noqa: E402
    AddedToken,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

TEXT = corpora.prose()[:60_000].splitlines()
EXTRA = ["", " ", "  ", "\t\n", "Hello, World!", "héllo HÉLLO", "ﬁne Ａ ①", "中文字 and 日本語",
         "가나다 abc ᄀ\u1161", "e\u0301\u0301x", "a\x00b\ufffdc\x01d\u200be", "ΣΑΣ ς", "İstanbul",
         "don't U.S.A. $5^2 a+b 12345 3.14", "😀👍🏽 x", "word\u3000word\xa0word\u2009word",
         "  leading and trailing  ", "[NEW]hi [NEW] <s>x</s> <mask>", "naïve NAÏVE Naïve",
         "<extra> ok<extra>ok", "x" * 120, "a  b   c", "▁a ▁ b", "see the cat  <mask> [R]  x",
         "the cats the cat. xx x", "the cat\nthe cat\n", "a\n<mask>\n x\nx", "it's 1999's", "\r\n\t\x0b\x0c\x1c\x85\u2028\u200b", "##x##"]
FIXED = list(corpora.HARD_STRINGS) + list(corpora.SAMPLES.values()) + EXTRA
ADDED = [AddedToken("[NEW]", normalized=False, special=False),
         AddedToken("naïve", normalized=True, special=False)]


def bert(kind: str) -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(TEXT, trainers.WordPieceTrainer(
        vocab_size=1500, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if kind == "template":
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    else:
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    tok.add_tokens(ADDED)
    return tok


def roberta() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=800, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")))
    tok.add_tokens(ADDED)
    return tok


def gpt2() -> Tokenizer:
    """GPT-2's shape: ByteLevel without a prefix space, its post-processor trimming offsets."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=600, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.add_tokens(ADDED)
    return tok


def unigram(charsmap: bytes | None) -> Tokenizer:
    tok = Tokenizer(models.Unigram())
    if charsmap:
        tok.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap),
                                               normalizers.Replace(" {2,}", " ")])
    else:
        tok.normalizer = normalizers.Sequence([
            normalizers.NFKC(), normalizers.Replace(tokenizers.Regex(" {2,}"), " "),
            normalizers.Strip()])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="always")
    tok.decoder = decoders.Metaspace(prepend_scheme="always")
    tok.train_from_iterator(TEXT, trainers.UnigramTrainer(
        vocab_size=600, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>",
        show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))])
    tok.add_special_tokens([AddedToken("<extra>", normalized=True, special=True)])
    tok.add_tokens(ADDED)
    return tok


def affixes() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##",
                               end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
                                           normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=700, special_tokens=["[UNK]"], continuing_subword_prefix="##",
        end_of_word_suffix="</w>", show_progress=False))
    tok.add_tokens(ADDED)
    return tok


def llama() -> Tokenizer:
    tok = byte_fallback_bpe(TEXT, ["<unk>", "<s>", "</s>"])
    vocab = tok.get_vocab()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])])
    tok.add_special_tokens([AddedToken("<s>", normalized=False, special=True),
                            AddedToken("</s>", normalized=False, special=True)])
    tok.add_tokens(ADDED)
    return tok


def splits() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>", ignore_merges=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFKD(), normalizers.Lowercase(),
                                           normalizers.Strip(left=True, right=False)])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Split(tokenizers.Regex(r"'s|'t|n't"), "isolated"),
        pre_tokenizers.Split("-", "merged_with_previous"),
        pre_tokenizers.Split(tokenizers.Regex(r"[aeiou]+"), "merged_with_next", invert=True),
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Punctuation("contiguous")])
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=500, special_tokens=["<unk>"], show_progress=False))
    tok.add_tokens(ADDED)
    return tok


def charsmap(tmp) -> bytes | None:
    spm = pytest.importorskip("sentencepiece")
    from bpe_course.sentencepiece.model_proto import read_model
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TEXT[:2000]),
                                   model_prefix=str(tmp / "nfkc"), vocab_size=300,
                                   num_threads=1, minloglevel=2)
    return read_model((tmp / "nfkc.model").read_bytes()).normalizer["precompiled_charsmap"]


LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def variants(built: dict) -> dict:
    """More files from the trained ones, each changing some steps: the other options and
    components, in the shapes real files have them."""
    def copy(name):
        return Tokenizer.from_str(built[name].to_str())

    out = {}
    tok = copy("roberta")                   # RoBERTa's <mask> takes the space before it
    data = json.loads(tok.to_str())
    for entry in data["added_tokens"]:
        if entry["content"] == "<mask>":
            entry["lstrip"] = True
    tok = Tokenizer.from_str(json.dumps(data))
    tok.add_tokens([AddedToken("the cat", single_word=True), AddedToken("[R]", rstrip=True),
                    AddedToken("x", single_word=True, lstrip=True)])
    out["roberta_strip"] = tok

    tok = copy("gpt2")                      # Llama 3: a Split regex, then bytes
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(tokenizers.Regex(LLAMA3_PATTERN), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|endoftext|> $A",
                                      special_tokens=[("<|endoftext|>", 0)])])
    out["llama3"] = tok

    tok = copy("unigram_precompiled")       # T5: WhitespaceSplit, then Metaspace
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Metaspace()])
    out["t5"] = tok

    tok = copy("unigram_nfkc")              # Metaspace before the first piece only, unsplit
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first", split=False)
    tok.decoder = decoders.Metaspace(prepend_scheme="first")
    tok.normalizer = normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC()])
    out["metaspace_first"] = tok

    tok = copy("bert_template")             # each of BERT's switches off
    tok.normalizer = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                                strip_accents=False, lowercase=False)
    tok.decoder = decoders.WordPiece(cleanup=False)
    tok.post_processor = None
    out["bert_switches_off"] = tok

    tok = copy("bpe_affixes")               # other normalizers, decoders, a template
    tok.normalizer = normalizers.Sequence([
        normalizers.NFC(), normalizers.Strip(left=False, right=True),
        normalizers.Replace(tokenizers.Regex("[0-9]+"), "#"), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.CharDelimiterSplit(" "), pre_tokenizers.Punctuation("merged_with_next"),
        pre_tokenizers.Digits(individual_digits=False)])
    tok.decoder = decoders.Sequence([decoders.Replace(tokenizers.Regex("#+"), "§"),
                                     decoders.BPEDecoder()])
    tok.post_processor = processors.TemplateProcessing(single="[UNK] $A [UNK]",
                                                       special_tokens=[("[UNK]", 0)])
    out["bpe_other_steps"] = tok

    data = json.loads(built["unigram_nfkc"].to_str())      # Unigram with byte fallback
    data["model"]["vocab"] += [[f"<0x{b:02X}>", -20.0] for b in range(256)]
    data["model"]["byte_fallback"] = True
    tok = Tokenizer.from_str(json.dumps(data))
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
    out["unigram_byte_fallback"] = tok

    data = json.loads(built["split_sequence"].to_str())     # BPE without an unknown token
    data["model"]["unk_token"] = None
    data["model"]["ignore_merges"] = False
    data["post_processor"] = {"type": "TemplateProcessing",      # a special token of 2 ids
                              "single": [{"SpecialToken": {"id": "<go>", "type_id": 0}},
                                         {"Sequence": {"id": "A", "type_id": 0}}],
                              "pair": [], "special_tokens": {"<go>": {
                                  "id": "<go>", "ids": [5, 6], "tokens": ["<g", "o>"]}}}
    out["bpe_no_unk"] = Tokenizer.from_str(json.dumps(data))

    tok = copy("bert_processing")           # short words only
    data = json.loads(tok.to_str())
    data["model"]["max_input_chars_per_word"] = 4
    out["wordpiece_short_words"] = Tokenizer.from_str(json.dumps(data))

    data = json.loads(built["split_sequence"].to_str())     # WordLevel, ByteLevel normalizer
    tok = Tokenizer(models.WordLevel(data["model"]["vocab"], unk_token="<unk>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents(),
                                           normalizers.ByteLevel()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                 pre_tokenizers.FixedLength(3)])
    tok.decoder = decoders.CTC(pad_token="<unk>", word_delimiter_token="e")
    tok.add_tokens(ADDED)
    out["wordlevel"] = tok
    return out


@pytest.fixture(scope="session")
def files(tmp_path_factory) -> dict:
    """name -> (the path of a tokenizer.json, the tokenizers Tokenizer read from it)."""
    tmp = tmp_path_factory.mktemp("tokenizer_json")
    built = {"bert_template": bert("template"), "bert_processing": bert("processing"),
             "roberta": roberta(), "gpt2": gpt2(), "unigram_precompiled": unigram(charsmap(tmp)),
             "unigram_nfkc": unigram(None), "bpe_affixes": affixes(), "llama": llama(),
             "split_sequence": splits()}
    built |= variants(built)
    out = {}
    for name, tok in built.items():
        path = tmp / f"{name}.json"
        tok.save(str(path))
        out[name] = (path, Tokenizer.from_file(str(path)))
    return out


@pytest.fixture(scope="session")
def pairs(files) -> dict:
    return {name: (ref, load_tokenizer_json(path)) for name, (path, ref) in files.items()}


def assert_same(ref, ours, text: str) -> None:
    expected = ref.encode(text)
    got = ours.encode_with_offsets(text)
    assert got.ids == expected.ids, text
    assert got.tokens == expected.tokens, text
    assert got.offsets == expected.offsets, text
    assert ours.encode(text) == expected.ids
    assert ours.decode(expected.ids) == ref.decode(expected.ids), text
    assert ours.decode(expected.ids, skip_special_tokens=False) == \
        ref.decode(expected.ids, skip_special_tokens=False), text


NAMES = ["bert_template", "bert_processing", "roberta", "gpt2", "unigram_precompiled",
         "unigram_nfkc", "bpe_affixes", "llama", "split_sequence", "roberta_strip", "llama3",
         "t5", "metaspace_first", "bert_switches_off", "bpe_other_steps", "wordlevel",
         "unigram_byte_fallback", "bpe_no_unk", "wordpiece_short_words"]


@pytest.mark.parametrize("name", NAMES)
def test_fixed_strings(pairs, name):
    ref, ours = pairs[name]
    for text in FIXED:
        assert_same(ref, ours, text)


# pieces that meet each file's own conventions: its added tokens, "▁", "Ġ", "##", "</w>",
# byte tokens written out, digits, punctuation runs, hyphens, contractions
OWN = st.sampled_from(["[NEW]", "naïve", "NAÏVE", "<s>", "</s>", "<mask>", "<extra>", "<unk>",
                       "[CLS]", "[UNK]", "▁", "Ġ", "##", "</w>", "<0x41>", "2024", "3.14",
                       "?!", "...", "-", "--", "it's", "don't", "  ", " ", "\n\n", "x"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", NAMES)
def test_text_in_many_scripts(pairs, many_scripts, name, data):
    ref, ours = pairs[name]
    text = data.draw(st.lists(st.one_of(many_scripts, OWN), max_size=4).map("".join))
    assert_same(ref, ours, assigned(text))


def assigned(text: str) -> str:
    """`text` without the characters Python's Unicode has not assigned (category Cn): the
    regex engines on either side know different Unicode versions, and disagree on them."""
    return "".join(c for c in text if unicodedata.category(c) != "Cn")


PROSE = corpora.prose()
# every 20th line of the prose (the files were trained on its first 60,000 characters only),
# a 10,000-character stretch in one call, and Python code
REAL = PROSE.splitlines()[::20] + [PROSE[200_000:210_000], corpora.python_code(200_000)[:6_000]]


@pytest.mark.parametrize("name", NAMES)
def test_prose_and_code(pairs, name):
    ref, ours = pairs[name]
    for text in REAL:
        assert_same(ref, ours, text)


WORDS = st.lists(st.sampled_from(PROSE[:5000].split() + [" ", "  ", "\n", "\t", "'s", "123",
                                                         "É", "ï", "ß", "﹏", "ﬁ"]),
                 max_size=12).map(" ".join)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=WORDS)
@pytest.mark.parametrize("name", NAMES)
def test_prose_words_in_any_order(pairs, name, text):
    ref, ours = pairs[name]
    assert_same(ref, ours, text)


@pytest.fixture(scope="module")
def same_token_twice(tmp_path_factory):
    """A BPE whose merges "a bc" and "ab c" both make "abc" (trainers can learn both)."""
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5, "ca": 6, "cab": 7}
    merges = [("b", "c"), ("c", "a"), ("a", "b"), ("c", "ab"), ("ab", "c"), ("a", "bc")]
    path = tmp_path_factory.mktemp("same_token") / "tokenizer.json"
    Tokenizer(models.BPE(vocab, merges)).save(str(path))
    return Tokenizer.from_file(str(path)), load_tokenizer_json(path)


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.sampled_from("abc"), max_size=14))
def test_two_merges_that_make_the_same_token(same_token_twice, text):
    ref, ours = same_token_twice
    assert_same(ref, ours, text)


@pytest.mark.parametrize("name", ["unigram_precompiled", "unigram_nfkc", "t5"])
def test_unigram_scores_are_read_as_tokenizers_reads_them(files, name):
    """Each score as the library holds it in memory (it writes that value back in the
    fewest digits), to the last bit: the course reads floats as serde_json does."""
    from bpe_course.pipeline.tokenizer_json import serde_json_float
    path, ref = files[name]
    ours = json.loads(path.read_text(encoding="utf-8"), parse_float=serde_json_float)
    held = json.loads(ref.to_str())
    assert [s for _, s in ours["model"]["vocab"]] == [s for _, s in held["model"]["vocab"]]
