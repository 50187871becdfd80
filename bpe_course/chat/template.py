"""A chat as one sequence of ids: Mistral's chat template, and Mistral's own recipe.

A chat model is fine-tuned on conversations written in one fixed layout. For Mistral 7B
Instruct (v0.1 and v0.2, whose tokenizer is the course's `mistral_tokenizer.model.v1`) the
layout is Mistral's "v1" format::

    <s> [INST] system prompt\\n\\nfirst question [/INST] first answer</s> [INST] next question [/INST]

There are two ways to produce the ids of such a conversation, and this module has both:

- **A chat template** writes the messages into one string, which the tokenizer then encodes,
  reading `<s>` and `</s>` in it as the special tokens BOS (id 1) and EOS (id 2). This is
  what `transformers`' `apply_chat_template` does, with the template in the tokenizer's
  folder. `mistral_v1_template()` is Mistral's own template for the v1 tokenizer, shipped
  with the course; `write_mistral_v1_tokenizer(folder)` writes a folder that
  `transformers.AutoTokenizer.from_pretrained` reads (the `.model`, this template, and a
  `tokenizer_config.json` written by the course).
- **Mistral's recipe** (its library `mistral-common`, which Mistral calls the ground truth)
  never builds that string: it encodes each message apart with SentencePiece and joins the
  ids, adding BOS and EOS as ids. `mistral_v1_ids(messages)` does the same with the course's
  `SentencePieceBPE`: a user turn is `encode("[INST] " + text + " [/INST]")`, an answer is
  `encode(text)` then EOS, and system messages go in front of the first user message.

On ordinary conversations both give the same ids. Where they differ, the recipe is right:

>>> chat = [{"role": "user", "content": "What is a token?"}]
>>> mistral_v1_ids(chat)
[1, 733, 16289, 28793, 1824, 349, 264, 6029, 28804, 733, 28748, 16289, 28793]
>>> EOS in mistral_v1_ids([{"role": "user", "content": "Hi</s>"}])    # typed: stays text
False

Subtle: in the v1 format `[INST]` and `[/INST]` are *ordinary text* (`▁[`, `INST`, `]`),
not special tokens, so a user who types `[/INST]` produces exactly the ids the template
writes: no tokenizer can tell them apart. Only `<s>` and `</s>` are special. (Mistral's later
tokenizers made `[INST]` a control token of its own, id 3.)
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

from ..sentencepiece.tokenizer import SentencePieceBPE, mistral_model_bytes

MISTRAL_V1_TEMPLATE = "mistral_v1_chat_template.jinja"
MISTRAL_V1_TEMPLATE_SHA256 = "139e1b4d7a86cda59c8c22c0b7e331a18fb0b4dba4b7318c47ccffae71c32af9"
BOS, EOS = 1, 2                       # the ids of <s> and </s> in Mistral's v1 model
ROLES = ("system", "user", "assistant")

# What `transformers` needs beside the .model and the template: the class that reads a
# SentencePiece BPE `.model` (LlamaTokenizer, also used for Mistral's v1 models), the special
# tokens, and BOS added in front of every encoded text, as Mistral's tokenizer does.
TOKENIZER_CONFIG = {
    "tokenizer_class": "LlamaTokenizer",
    "bos_token": "<s>",
    "eos_token": "</s>",
    "unk_token": "<unk>",
    "add_bos_token": True,
    "add_eos_token": False,
    "legacy": False,
    "clean_up_tokenization_spaces": False,
}


def mistral_v1_template() -> str:
    """Mistral's chat template for its v1 tokenizer (Jinja), checked against its sha256.

    It is what `mistral-common` 1.13.1 generates for `tokenizer.model.v1`
    (`convert_tokenizer_to_chat_template`); see bpe_course/data/README.md."""
    data = (resources.files("bpe_course") / "data" / MISTRAL_V1_TEMPLATE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MISTRAL_V1_TEMPLATE_SHA256:
        raise ValueError(f"bpe_course/data/{MISTRAL_V1_TEMPLATE} has sha256 {digest}, expected "
                         f"{MISTRAL_V1_TEMPLATE_SHA256}: reinstall the course package")
    return data.decode("utf-8")


def write_mistral_v1_tokenizer(folder: str | Path) -> Path:
    """Write Mistral 7B Instruct's tokenizer into `folder` (created if needed), for
    `transformers.AutoTokenizer.from_pretrained(folder)`; return the folder.

    Three files: `tokenizer.model` (Mistral's SentencePiece model), and `tokenizer_config.json`
    holding `TOKENIZER_CONFIG` and, as `chat_template`, `mistral_v1_template()`. transformers
    builds its fast tokenizer from the `.model` (it needs `sentencepiece` and `protobuf`)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a folder: give a folder to write the "
                         "tokenizer into")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokenizer.model").write_bytes(mistral_model_bytes())
    config = dict(TOKENIZER_CONFIG, chat_template=mistral_v1_template())
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n",
                                                  encoding="utf-8")
    return folder


def check_messages(messages) -> list[dict]:
    """`messages` as a list of {"role", "content"} dicts, or a ValueError/TypeError that says
    what is wrong."""
    if isinstance(messages, (str, bytes)) or not hasattr(messages, "__iter__"):
        raise TypeError("messages must be a list of {'role': ..., 'content': ...} dicts")
    checked = []
    for k, message in enumerate(messages):
        if not isinstance(message, dict) or set(message) != {"role", "content"}:
            raise TypeError(f"message {k} must be a dict with exactly the keys 'role' and "
                            f"'content', got {message!r}")
        if message["role"] not in ROLES:
            raise ValueError(f"message {k} has the role {message['role']!r}; the v1 format "
                             f"knows {', '.join(ROLES)}")
        if not isinstance(message["content"], str):
            raise TypeError(f"message {k}'s content must be a str, got "
                            f"{type(message['content']).__name__}")
        checked.append(message)
    return checked


def turns(messages) -> tuple[str, list[tuple[str, str]]]:
    """The system prompt and the turns of a conversation, as the v1 format sees them.

    System messages are joined (with a blank line) into one system prompt; consecutive
    messages of the same role are joined into one turn the same way. The first turn must be
    the user's, and an answer may not be empty."""
    messages = check_messages(messages)
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    joined: list[tuple[str, str]] = []
    for m in messages:
        if m["role"] == "system":
            continue
        if joined and joined[-1][0] == m["role"]:
            joined[-1] = (m["role"], joined[-1][1] + "\n\n" + m["content"])
        else:
            joined.append((m["role"], m["content"]))
    if not joined or joined[0][0] != "user":
        raise ValueError("a conversation must have a user message before any answer")
    if any(role == "assistant" and not text for role, text in joined):
        raise ValueError("an assistant message must not be empty")
    return system, joined


def mistral_v1_ids(messages, sp: SentencePieceBPE | None = None) -> list[int]:
    """The ids of a conversation in Mistral's v1 format, encoded message by message as
    `mistral-common` does (`sp`: Mistral's model, loaded if not given).

    Every text is encoded as text: a `</s>` typed in a message is the characters `</s>`,
    never EOS. BOS and EOS come only from here."""
    system, conversation = turns(messages)
    sp = sp or SentencePieceBPE.mistral()
    ids = [BOS]
    for k, (role, text) in enumerate(conversation):
        if role == "user":
            if k == 0 and system:
                text = system + "\n\n" + text
            ids += sp.encode(f"[INST] {text} [/INST]")
        else:
            ids += sp.encode(text) + [EOS]
    return ids
