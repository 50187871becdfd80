"""Special tokens: strings like "<|endoftext|>" that map to one reserved id.

A special token is not learned by BPE. It is cut out of the text *before*
the split pattern runs and gets its own id, so a document boundary is always
exactly one token. That power is also a risk: if user text containing
"<|endoftext|>" were encoded as the special id, a user could forge document
boundaries or chat roles. So by default (`"none_raise"`) encoding refuses
text that contains a special token, and the caller must opt in.

`allowed_special` modes, as in tiktoken:

- `"all"`: every registered special token in the text becomes its id;
- `"none"`: special tokens are encoded as ordinary text;
- `"none_raise"` (default): raise ValueError if the text contains one;
- a set of tokens: those become ids; any other registered one raises.

`disallowed_special` means what it means in tiktoken: the special tokens
whose appearance in the text raises ValueError. Its default, `"all"`, is
every registered token that is not allowed, except in mode `"none"`, which
asks for special tokens to be plain text (tiktoken's `disallowed_special=()`).
An explicit set is checked in every mode; `()` checks nothing.

>>> split_special("a<|x|>b", {"<|x|>"})
['a', '<|x|>', 'b']
"""

from __future__ import annotations

import functools

import regex

MODES = ("all", "none", "none_raise")


def check_special_tokens(special_tokens) -> list[str]:
    """The names of special tokens as a list, checked: distinct non-empty strs.

    Every function that takes special tokens by name (`train_bpe`, `from_merges`,
    `from_vocab_merges`, `train_wordpiece`, ...) checks them here.

    >>> check_special_tokens(("<|eot|>", "<|pad|>"))
    ['<|eot|>', '<|pad|>']
    >>> check_special_tokens("<|eot|>")
    Traceback (most recent call last):
        ...
    TypeError: special_tokens must be a list of strings, not one string; write ['<|eot|>']
    """
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, not one string; "
                        f"write [{special_tokens!r}]")
    try:
        tokens = list(special_tokens)
    except TypeError:
        raise TypeError(f"special_tokens must be a list of strings, got "
                        f"{type(special_tokens).__name__}") from None
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise ValueError(f"a special token must be a non-empty str, got {token!r}")
    if len(set(tokens)) != len(tokens):
        repeated = next(t for t in tokens if tokens.count(t) > 1)
        raise ValueError(f"special tokens must be distinct: {repeated!r} is repeated")
    return tokens


def check_special_ids(special_tokens) -> dict[str, int]:
    """Special tokens with their ids, `{token: id}`, checked: non-empty strs, ids
    non-negative ints. `register_special_tokens` checks its argument here.

    >>> check_special_ids({"<|eot|>": -1})
    Traceback (most recent call last):
        ...
    ValueError: the id of '<|eot|>' must be a non-negative int, got -1
    """
    if not isinstance(special_tokens, dict):
        raise TypeError(f"special tokens with ids must be a dict {{token: id}}, got "
                        f"{type(special_tokens).__name__}")
    check_special_tokens(special_tokens)
    for token, idx in special_tokens.items():
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise ValueError(f"the id of {token!r} must be a non-negative int, got {idx!r}")
    return special_tokens


def special_pattern(tokens) -> regex.Pattern | None:
    """A pattern matching any of `tokens`, longest first, or None if there are none.

    Subtle: if both "<|endoftext|>" and "<|endoftext|><|endoftext|>" are
    registered, the longer must win, so alternatives are sorted by length
    (regex alternation takes the first alternative that matches). Tokens are
    escaped: "<|" is not a regex. An empty list must give no pattern at all:
    "()" would match the empty string at every position.
    """
    return _compiled(tuple(sorted(tokens, key=lambda t: (-len(t), t))))


@functools.lru_cache(maxsize=64)
def _compiled(tokens: tuple[str, ...]) -> regex.Pattern | None:
    # Encoding many short texts must not compile the same pattern every time.
    if not tokens:
        return None
    return regex.compile("|".join(regex.escape(t) for t in tokens))


def split_special(text: str, tokens) -> list[str]:
    """Split `text` into ordinary pieces and special tokens (kept, in order)."""
    pattern = special_pattern(tokens)
    if pattern is None:
        return [text] if text else []
    parts = []
    pos = 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            parts.append(text[pos:m.start()])
        parts.append(m.group())
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    return parts


def resolve_allowed(allowed_special, registered: dict[str, int]) -> set[str]:
    """Turn an `allowed_special` argument into the set of tokens to encode as ids.

    Raises ValueError for an unknown mode or for tokens that are not registered.
    """
    if isinstance(allowed_special, str):
        if allowed_special == "all":
            return set(registered)
        if allowed_special in ("none", "none_raise"):
            return set()
        raise ValueError(f"allowed_special must be one of {MODES} or a set of special "
                         f"tokens, got {allowed_special!r}")
    try:
        allowed = set(allowed_special)
    except TypeError:
        raise TypeError(f"allowed_special must be one of {MODES} or a set of special "
                        f"tokens, got {type(allowed_special).__name__}") from None
    unknown = sorted(t for t in allowed if t not in registered)
    if unknown:
        raise ValueError(f"allowed_special names tokens that are not registered special "
                         f"tokens: {unknown}; registered: {sorted(registered)}")
    return allowed


def resolve_disallowed(disallowed_special, allowed_special, allowed: set[str],
                       registered: dict[str, int]) -> set[str]:
    """Turn a `disallowed_special` argument into the set of tokens that must not occur.

    >>> resolve_disallowed("all", "none_raise", set(), {"<|a|>": 5, "<|b|>": 6}) == {"<|a|>", "<|b|>"}
    True
    >>> resolve_disallowed("all", "none", set(), {"<|a|>": 5})   # mode "none": nothing
    set()
    """
    if isinstance(disallowed_special, str):
        if disallowed_special != "all":
            raise ValueError(f"disallowed_special must be 'all' or a collection of special "
                             f"tokens, got {disallowed_special!r}")
        if isinstance(allowed_special, str) and allowed_special == "none":
            return set()
        return set(registered) - allowed
    try:
        disallowed = set(disallowed_special)
    except TypeError:
        raise TypeError(f"disallowed_special must be 'all' or a collection of special "
                        f"tokens, got {type(disallowed_special).__name__}") from None
    if not all(isinstance(t, str) for t in disallowed):
        raise TypeError(f"disallowed_special must hold strings, got {sorted(map(repr, disallowed))}")
    return disallowed


def check_disallowed(text: str, disallowed, offset: int = 0) -> None:
    """Raise ValueError naming the first disallowed special token found in `text`.

    `offset` is where `text` starts in the whole text (for a stream), so the
    message gives the token's position in the whole text.
    """
    pattern = special_pattern(disallowed)
    if pattern is None:
        return
    m = pattern.search(text)
    if m:
        raise ValueError(
            f"text contains the special token {m.group()!r} at position {offset + m.start()}, "
            f"which is not allowed. To encode it as a special token, pass "
            f"allowed_special={{{m.group()!r}}} (or 'all'); to encode it as ordinary "
            f"text, pass allowed_special='none'.")
