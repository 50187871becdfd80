"""Ways to look at tokens: show_tokens, merge_tree, compare_tokens."""

from bpe_course import (
    BasicTokenizer,
    GPT4Tokenizer,
    compare_tokens,
    get_encoding,
    merge_tree,
    show_tokens,
)


def test_show_tokens_for_our_tokenizers_and_tiktoken():
    ours = show_tokens(GPT4Tokenizer(), "Hello <|endoftext|>!")
    theirs = show_tokens(get_encoding("cl100k_base"), "Hello <|endoftext|>!")
    assert str(ours) == str(theirs) == "Hello| |<|endoftext|>|!   (4 tokens, 20 characters)"
    assert ours._repr_html_().count("<span") == 4
    assert "&lt;|endoftext|&gt;" in ours._repr_html_()


def test_merge_tree_ends_in_bytes():
    tok = BasicTokenizer()
    tok.train("hello hello hello", 262)
    tree = merge_tree(tok, max(tok.merges.values()))
    assert tree.splitlines()[0].startswith(str(max(tok.merges.values())))
    assert "104 b'h'" in tree


def test_compare_tokens_shows_gpt2_gpt4_gpt4o_side_by_side():
    text = "def f():\n        return 12345"
    view = compare_tokens(text)
    assert list(view.counts) == ["GPT-2 (r50k_base)", "GPT-4 (cl100k_base)",
                                 "GPT-4o (o200k_base)"]
    for name, count in zip(["r50k_base", "cl100k_base", "o200k_base"], view.counts.values()):
        assert count == len(get_encoding(name).encode(text))
    html = view._repr_html_()
    assert html.count("<b>") == 3 and "display:flex" in html
    assert str(view).splitlines()[0] == f"GPT-2 (r50k_base): {view.counts['GPT-2 (r50k_base)']} tokens"


def test_compare_tokens_takes_tokenizers_and_labels():
    view = compare_tokens("hello world", {"ours": GPT4Tokenizer("cl100k_base"),
                                          "tiktoken": get_encoding("cl100k_base")})
    assert view.counts == {"ours": 2, "tiktoken": 2}
    assert list(compare_tokens("hi", [GPT4Tokenizer("gpt2")]).counts) == ["GPT-2 (gpt2)"]
