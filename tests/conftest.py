"""Fixtures that several test files share.

- `ours_and_tiktoken(name)`: the course's `OpenAITokenizer` beside tiktoken's own
  `Encoding` for one OpenAI encoding, each built once per session.
- `tricky_text`: a Hypothesis strategy for text that the OpenAI split patterns find hard.
- `mistral`: `SentencePieceBPE.mistral()`, Mistral 7B's tokenizer, built once per session.
- `spm`: the sentencepiece library, for tests that compare with it (skipped without it).
- `no_network`: a test that opens a connection fails.
"""

from __future__ import annotations

import functools
import socket

import pytest
from hypothesis import strategies as st

from bpe_course import OpenAITokenizer, SentencePieceBPE, get_encoding


@pytest.fixture(scope="session")
def ours_and_tiktoken():
    """`ours_and_tiktoken(name)` -> (OpenAITokenizer(name), tiktoken's Encoding for name).

    Building ours reads and checks 100,000 ranks or more, so each is built once; both are
    only read by the tests that use them.
    """
    @functools.cache
    def pair(name: str):
        return OpenAITokenizer(name), get_encoding(name)
    return pair


@pytest.fixture(scope="session")
def tricky_text():
    """Any UTF-8 text, or a run of the pieces that the split patterns treat specially
    (contractions, digit groups, whitespace runs, a combining mark, a ZWJ, special-token
    text, GPT-2's "Ġ"). Draw from it with `data.draw(tricky_text)`."""
    any_text = st.text(st.characters(codec="utf-8"), max_size=300)
    pieces = st.lists(st.sampled_from(["a", "A", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "’",
                                       "1", "123", "4567", "é", "e\u0301", "Ж", "中", "👍", "🏽",
                                       "\u200d", "!", "...", "<|endoftext|>", "<|fim_prefix|>",
                                       "Ġ", "_", "/", "x"]),
                      max_size=60).map("".join)
    return st.one_of(any_text, pieces)


@pytest.fixture(scope="session")
def mistral() -> SentencePieceBPE:
    """Mistral 7B's SentencePiece tokenizer, shipped with the package (no skip)."""
    return SentencePieceBPE.mistral()


@pytest.fixture(scope="session")
def spm():
    """The sentencepiece library, which the course's SentencePiece code is checked against."""
    return pytest.importorskip("sentencepiece")


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to connect (a socket, or `requests.get` as tiktoken downloads) raises."""
    import requests

    def refuse(*args, **kwargs):
        raise OSError("network access in a test")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(requests, "get", refuse)
