"""The token explorer's logic, without a browser: counts, views, the live update, fallbacks."""

import re

import pytest

from bpe_course import BasicTokenizer, GPT4Tokenizer, get_encoding, show_tokens, token_explorer
from bpe_course.explorer import MAX_CHARS, WIDGET_VIEW, Explorer, standard_tokenizers
from bpe_course.viz import COLOURS


@pytest.fixture(scope="module")
def mine():
    tok = BasicTokenizer()
    tok.train("the cat sat on the mat, the cat ate the rat " * 10, 280)
    return tok


def counts_line(html_text):
    line = re.search(r'class="bpe-counts"[^>]*>(.*?)</div>', html_text).group(1)
    return re.findall(r"<b>(\S+)</b>", line)


def test_counts_equal_each_tokenizers_own_encoding(mine):
    ex = token_explorer(mine, text="the cat sat on a mat")
    counts = ex.counts()
    assert counts["yours (BasicTokenizer, vocab 280)"] == len(mine.encode("the cat sat on a mat"))
    assert counts["GPT-4 (cl100k_base)"] == len(get_encoding("cl100k_base").encode("the cat sat on a mat"))
    assert counts["GPT-4o (o200k_base)"] == len(get_encoding("o200k_base").encode("the cat sat on a mat"))
    assert list(counts)[0].startswith("yours")          # the learner's column comes first


def test_gpt2_is_shown_when_the_course_can_load_it_and_explained_when_not():
    tokenizers, notes = standard_tokenizers()
    try:
        get_encoding("r50k_base")
    except ValueError:
        assert "GPT-2 (r50k_base)" not in tokenizers
        assert notes and notes[0].startswith("GPT-2 (r50k_base) is left out")
    else:
        assert "GPT-2 (r50k_base)" in tokenizers and notes == []
    assert {"GPT-4 (cl100k_base)", "GPT-4o (o200k_base)"} <= set(tokenizers)


def test_each_column_is_show_tokens_view_under_its_label(mine):
    ex = Explorer({"mine": mine, "GPT-4": GPT4Tokenizer()}, text="Hi <|endoftext|> there")
    page = ex.html()
    for label, tok in ex.tokenizers.items():
        assert f'data-label="{label}"' in page
        view = show_tokens(tok, ex.text)._repr_html_()            # same colours, ids on hover
        assert view.replace("</span><span", "</span><wbr><span") in page
    assert COLOURS[0] in page and 'title="100257"' in page
    assert counts_line(page) == [str(n) for n in ex.counts().values()]


def test_typing_in_the_widget_updates_the_view_and_the_counts(mine):
    ex = token_explorer(mine, text="cat")
    widget = ex.build_widget()
    box, out = widget.children
    assert counts_line(out.value) == [str(n) for n in ex.counts("cat").values()]
    box.value = "the cat sat on the mat, and then the rat ate the cat"
    assert ex.text == box.value
    assert out.value == ex.html(box.value)
    assert counts_line(out.value) != counts_line(ex.html("cat"))


def test_the_output_bundle_has_a_live_widget_and_a_static_fallback(mine):
    ex = token_explorer(mine, text="the mat")
    bundle = ex._repr_mimebundle_()
    assert bundle["text/html"] == ex.html()
    assert bundle[WIDGET_VIEW]["model_id"] == ex.widget.model_id
    assert bundle["text/plain"].splitlines()[0] == \
        f"yours (BasicTokenizer, vocab 280): {len(mine.encode('the mat'))} tokens"


def test_a_failing_tokenizer_shows_its_error_and_the_others_still_work():
    class Unfinished:
        def encode(self, text):
            raise NotImplementedError("write encode first")

    ex = token_explorer(Unfinished(), text="hello")
    assert ex.counts()["yours (Unfinished)"] is None
    assert "NotImplementedError: write encode first" in ex.html()
    assert ex.counts()["GPT-4 (cl100k_base)"] == 1
    assert counts_line(ex.html())[0] == "–"


def test_long_texts_are_cut_and_say_so():
    ex = token_explorer(text="a " * MAX_CHARS)
    assert f"first {MAX_CHARS:,} of {2 * MAX_CHARS:,} characters" in ex.html()
    assert ex.counts()["GPT-4 (cl100k_base)"] == len(get_encoding("cl100k_base").encode("a " * (MAX_CHARS // 2)))


def test_text_is_escaped_in_the_page():
    page = token_explorer(text="<script>alert(1)</script>").html()
    assert "<script>" not in page


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least one tokenizer"):
        Explorer({})
    with pytest.raises(TypeError, match="text must be a str"):
        token_explorer(text=b"bytes")


# -- SentencePiece (chapter 11) in the explorer ----------------------------------------------

def test_a_named_sentencepiece_column_counts_and_shows_mistrals_tokens(mistral):
    text = "Hello world! 12345 Привет 🦊"
    ex = token_explorer(named={"Mistral 7B (SentencePiece)": mistral}, text=text)
    assert list(ex.counts())[0] == "Mistral 7B (SentencePiece)"
    assert ex.counts()["Mistral 7B (SentencePiece)"] == len(mistral.encode(text))
    view = ex.views()["Mistral 7B (SentencePiece)"]
    assert view.ids == mistral.encode(text)
    assert b"".join(view.pieces) == b" " + text.encode("utf-8")      # the dummy prefix
    assert sum(len(p) == 1 and p[0] >= 0x80 for p in view.pieces) == 4   # 🦊: 4 byte pieces
