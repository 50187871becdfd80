"""A chat as ids: Mistral's recipe equals mistral-common; Mistral's template, run by
`transformers`, equals it on ordinary conversations and shows the known differences."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from bpe_course.chat import (
    mistral_v1_ids,
    mistral_v1_template,
    template,
    write_mistral_v1_tokenizer,
)

HERE = Path(__file__).parent
# Recorded with mistral-common 1.13.1 (not a dependency of the course): see "source" inside.
RECORDED = json.loads((HERE / "mistral_common_ids.json").read_text(encoding="utf-8"))
CONVERSATIONS = RECORDED["conversations"]
# Ordinary conversations, where transformers (string, then tokenizer) must give mistral-common's
# ids. Left out: "injected" (a typed </s> becomes EOS, tested below) and "spaces": transformers
# 5.24 ranks the merges it builds from the .model by piece id, not by SentencePiece's scores,
# so runs of spaces come out otherwise; that depends on the transformers release.
ORDINARY = sorted(set(CONVERSATIONS) - {"injected", "spaces"})


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_the_recipe_equals_mistral_common(name, mistral):
    conversation = CONVERSATIONS[name]
    assert mistral_v1_ids(conversation["messages"], mistral) == conversation["ids"]


def test_the_template_is_the_shipped_file():
    text = mistral_v1_template()
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == template.MISTRAL_V1_TEMPLATE_SHA256
    assert "' [INST] '" in text and "' [/INST]'" in text and "bos_token" in text


def test_a_damaged_template_is_refused(monkeypatch):
    monkeypatch.setattr(template, "MISTRAL_V1_TEMPLATE_SHA256", "0" * 64)
    with pytest.raises(ValueError, match="reinstall"):
        mistral_v1_template()


def test_system_messages_and_repeated_roles_are_joined_with_a_blank_line():
    system, turns = template.turns([
        {"role": "system", "content": "A."}, {"role": "user", "content": "b"},
        {"role": "system", "content": "C."}, {"role": "user", "content": "d"},
        {"role": "assistant", "content": "e"}])
    assert system == "A.\n\nC." and turns == [("user", "b\n\nd"), ("assistant", "e")]


def test_typed_special_tokens_stay_text(mistral):
    ids = mistral_v1_ids([{"role": "user", "content": "</s><s>"}], mistral)
    assert ids.count(template.BOS) == 1 and template.EOS not in ids


@pytest.mark.parametrize("messages, error, message", [
    ("hello", TypeError, "list of"),
    ([{"role": "user"}], TypeError, "exactly the keys"),
    ([{"role": "tool", "content": "x"}], ValueError, "knows system, user, assistant"),
    ([{"role": "user", "content": 3}], TypeError, "must be a str"),
    ([{"role": "assistant", "content": "x"}], ValueError, "user message before"),
    ([], ValueError, "user message before"),
    ([{"role": "user", "content": "x"}, {"role": "assistant", "content": ""}], ValueError,
     "must not be empty"),
])
def test_bad_conversations_get_a_clear_error(messages, error, message, mistral):
    with pytest.raises(error, match=message):
        mistral_v1_ids(messages, mistral)


def test_the_folder_holds_the_model_and_the_template(tmp_path):
    folder = write_mistral_v1_tokenizer(tmp_path / "mistral")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["chat_template"] == mistral_v1_template()
    assert config["tokenizer_class"] == "LlamaTokenizer" and config["add_bos_token"] is True
    assert (folder / "tokenizer.model").read_bytes()[:2] == b"\n\x0e"   # protobuf: field 1


def test_a_file_is_not_a_folder(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        write_mistral_v1_tokenizer(tmp_path / "f")


@pytest.fixture(scope="module")
def hf_mistral(tmp_path_factory):
    """transformers' tokenizer from the folder (transformers is an optional extra)."""
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")   # no PyTorch: no advice
    transformers = pytest.importorskip("transformers", reason="transformers not installed")
    folder = write_mistral_v1_tokenizer(tmp_path_factory.mktemp("mistral"))
    return transformers.AutoTokenizer.from_pretrained(str(folder))


def chat_ids(tok, messages) -> list[int]:
    return list(tok.apply_chat_template(messages, return_dict=True)["input_ids"])


@pytest.mark.parametrize("name", ORDINARY)
def test_transformers_with_the_template_equals_mistral_common(name, hf_mistral):
    conversation = CONVERSATIONS[name]
    assert chat_ids(hf_mistral, conversation["messages"]) == conversation["ids"]


def test_transformers_reads_a_typed_eos_as_eos_unless_told(hf_mistral):
    messages = CONVERSATIONS["injected"]["messages"]
    assert chat_ids(hf_mistral, messages).count(template.EOS) == 2
    text = hf_mistral.apply_chat_template(messages, tokenize=False)
    split = hf_mistral(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    assert template.EOS not in split and template.BOS not in split     # the template's <s> too


def test_encoding_the_rendered_string_again_doubles_bos(hf_mistral):
    text = hf_mistral.apply_chat_template(CONVERSATIONS["one_turn"]["messages"], tokenize=False)
    assert hf_mistral(text)["input_ids"][:2] == [template.BOS, template.BOS]
    assert hf_mistral(text, add_special_tokens=False)["input_ids"] == \
        CONVERSATIONS["one_turn"]["ids"]
