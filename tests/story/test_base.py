"""`Tokenizer`, the base class: it knows no subclass and calls no method a subclass overrides.

A subclass adds: it sets what it needs after `super().__init__()`, and one that keeps
something derived from the merges (RegexTokenizer's cache of encoded chunks) extends
`set_merges`, `first_merges` and `load`, calling the base's first; a trainer fills any
tokenizer through the public `set_merges`; a tokenizer that cannot be cut by vocabulary
size (OpenAI's, encoded by ranks) overrides `first_merges` to say so (tested with
`first_merges` in test_tokenizers).
"""

from __future__ import annotations

import ast
import inspect

from bpe_course import BasicTokenizer, OpenAITokenizer, RegexTokenizer, Tokenizer, base
from bpe_course.training import trainer


def test_the_base_class_names_no_subclass_and_asks_for_no_attribute_of_one():
    tree = ast.parse(inspect.getsource(base))
    asked = [node.args[1].value for node in ast.walk(tree)
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("hasattr", "getattr")
             and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)]
    assert asked == []
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not names & {"RegexTokenizer", "BasicTokenizer", "OpenAITokenizer"}


def test_set_merges_rebuilds_the_vocab_and_replaces_special_tokens_only_when_given():
    tok = RegexTokenizer()
    tok.register_special_tokens({"<|a|>": 300})
    tok.set_merges({(104, 105): 256})
    assert tok.vocab[256] == b"hi" and tok.special_tokens == {"<|a|>": 300}
    tok.set_merges({(104, 105): 256, (256, 256): 257}, {"<|b|>": 258})
    assert tok.special_tokens == {"<|b|>": 258}
    assert tok.encode("hihi<|b|>", allowed_special="all") == [257, 258]
    assert tok.decode([257, 258]) == "hihi<|b|>"


def test_set_merges_forgets_chunks_encoded_with_the_old_merges():
    tok = RegexTokenizer()
    assert tok.encode("hi") == [104, 105]            # now cached
    tok.set_merges({(104, 105): 256})
    assert tok.encode("hi") == [256]


def test_the_base_class_calls_no_method_that_a_subclass_overrides():
    # On every tokenizer class, a method it inherits from Tokenizer calls only methods it
    # inherits from Tokenizer too: the core never calls back into a subclass.
    tree = ast.parse(inspect.getsource(base.Tokenizer))
    calls = {}
    for method in tree.body[0].body:
        if isinstance(method, ast.FunctionDef):
            calls[method.name] = {node.func.attr for node in ast.walk(method)
                                  if isinstance(node, ast.Call)
                                  and isinstance(node.func, ast.Attribute)
                                  and isinstance(node.func.value, ast.Name)
                                  and node.func.value.id == "self"}
    assert calls["__init__"] == set() and calls["encode_chunk"]
    for cls in (BasicTokenizer, RegexTokenizer, OpenAITokenizer):
        for method, called in calls.items():
            if getattr(cls, method) is not getattr(Tokenizer, method):
                continue                    # the subclass has its own
            back = {c for c in called if getattr(cls, c) is not getattr(Tokenizer, c)}
            assert not back, f"Tokenizer.{method} calls {cls.__name__}'s {back}"


def test_the_constructors_build_each_vocabulary_once(monkeypatch):
    built = []
    monkeypatch.setattr(Tokenizer, "_build_vocab",
                        lambda self: built.append(type(self).__name__) or {})
    Tokenizer(), RegexTokenizer(), OpenAITokenizer("r50k_base")
    assert built == []


def test_a_subclass_that_extends_set_merges_sees_a_trainer_fill_it():
    class Counting(RegexTokenizer):
        changes = 0

        def set_merges(self, merges, special_tokens=None):
            super().set_merges(merges, special_tokens)
            self.changes += 1

    tok = Counting()
    before = tok.changes
    trainer.train_into(tok, "low lower lowest low", 256 + 3)
    assert tok.changes == before + 1 and len(tok.merges) == 3
    assert tok.decode(tok.encode("lowest")) == "lowest"


def test_train_into_sets_no_private_state():
    source = inspect.getsource(trainer.train_into)
    assert "._" not in source.split('"""')[-1]


def test_the_trainer_counts_bytes_before_and_tokens_after_merging():
    text = "aaaa bbb aaaa"
    result = trainer.train(text, 256 + 2, [], RegexTokenizer().pattern, num_workers=1)
    tok = RegexTokenizer.from_merges([(result.tokens[a], result.tokens[b]) for a, b in result.merges])
    assert result.text_bytes == len(text.encode())
    assert result.text_tokens == len(tok.encode(text))
    assert result.text_tokens < result.text_bytes


def test_a_plain_tokenizer_takes_merges():
    tok = Tokenizer()
    tok.set_merges({(97, 97): 256})
    assert tok.encode_chunk(b"aaa") == [256, 97]
