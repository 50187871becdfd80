"""Worksheet 08, files and vocabularies: GPT-2's byte map and its `vocab.json` + `merges.txt`.

`bytes_to_unicode` (GPT-2's map from the 256 bytes to printable characters,
printable bytes first), `read_vocab_merges` (a pair of files as `(vocab,
merges)` of bytes, every entry kept) and `write_vocab_merges` (the same pair
written back, so that reading it gives the same vocabulary and merges). The
worksheet's files are a small tokenizer trained here (spaces, newlines, é and
an emoji, whose merges join bytes that are not UTF-8 on their own, and
`<|endoftext|>`, which no merge makes) and GPT-2's own files; the hidden ones
are tokenizers trained on a random page of prose, with their ids in other
orders (CS336's: `<|endoftext|>` at 0).
"""

from __future__ import annotations

import functools

from .common import CONTRACT, EOT, REAL, REF, WRONG, Case, Checker, Group, Worksheet, course_ref

TOY_TEXT = "the cat\n\n the café, the hat 👍🏽 café\n\tthe end\n" * 3
TOY_SIZE = 256 + 14 + 1


@functools.cache
def toy() -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """The worksheet's small tokenizer: (vocab with `<|endoftext|>`, merges)."""
    from ...training.trainer import train_bpe
    return train_bpe(TOY_TEXT, TOY_SIZE, [EOT])


def toy_files() -> tuple[str, str]:
    """The texts of `vocab.json` and `merges.txt` for the worksheet's small tokenizer
    (`toy`), its tokens listed in the order of their text: what a failing case's code uses."""
    return files_of(*toy(), sort_keys=True)


def files_of(vocab: dict[int, bytes], merges: list, sort_keys: bool = False
             ) -> tuple[str, str]:
    """The texts of `vocab.json` and `merges.txt` for (vocab, merges), as the reference
    writes them; `sort_keys`: `vocab.json` lists its tokens in the order of their text, not of
    their ids (as `json.dumps(..., sort_keys=True)` writes it: a file may list them in any
    order)."""
    import json
    import tempfile
    from pathlib import Path

    from ..checking.references import write_vocab_merges
    with tempfile.TemporaryDirectory() as folder:
        write_vocab_merges(vocab, merges, folder)
        texts = [Path(folder, name).read_text(encoding="utf-8")
                 for name in ("vocab.json", "merges.txt")]
    if sort_keys:
        texts[0] = json.dumps(json.loads(texts[0]), ensure_ascii=False, sort_keys=True)
    return texts[0], texts[1]


def _wrong(cases: list[Case]) -> list[Case]:
    for case in cases:
        case.breaks = WRONG
    return cases


# -- exercise 1: the byte map ------------------------------------------------------------------

def bytes_to_unicode_groups() -> list[Group]:
    kept = ("The 188 printable bytes ('!' to '~', '¡' to '¬', '®' to 'ÿ') map to themselves: "
            "chr(b).")
    moved = ("The other 68 bytes move to chr(256), chr(257), ... in byte order: the k-th "
             "byte that moves (counting from 0) gets chr(256 + k), not chr(256 + b).")
    space = ("The space is printable, yet GPT-2 moves it: it is byte 32, the 33rd byte that "
             "moves, so chr(256 + 32) = 'Ġ'.")
    order = ("GPT-2's dict lists the printable bytes first, then the moved ones: "
             "list(bytes_to_unicode())[:3] is [33, 34, 35]. Build it in that order "
             "(the order of cl100k_base's first 256 ids, chapter 08).")
    return [Group(_wrong([
        Case("bytes_to_unicode()[32]", space),
        Case("bytes_to_unicode()[ord('A')]", kept),
        Case("bytes_to_unicode()[10]", moved),
        Case("[bytes_to_unicode()[b] for b in range(127, 161)]", moved),
        Case("bytes_to_unicode()[173]", "Byte 173, the soft hyphen, does not print: it moves "
             "(it is the last, chr(323))."),
        Case("[bytes_to_unicode()[b] for b in range(161, 256)]", kept),
        Case("len(bytes_to_unicode()), len(set(bytes_to_unicode().values()))",
             "Every one of the 256 bytes gets a character of its own."),
        Case("sorted(bytes_to_unicode().items())", moved, weight=5),
    ]) + [Case("list(bytes_to_unicode())", order, breaks=CONTRACT)])]


def _table(keep, moved_char) -> dict[int, str]:
    """A byte map built the way a learner may build it: `keep` the bytes that map to
    themselves (in this order), the others after them, `moved_char(k, b)` for the k-th."""
    table = {b: chr(b) for b in keep}
    others = [b for b in range(256) if b not in table]
    table.update({b: moved_char(k, b) for k, b in enumerate(others)})
    return table


def _printable() -> list[int]:
    return [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]


def _byte_map_mistakes() -> dict[str, tuple[dict, str]]:
    right = _table(_printable(), lambda k, b: chr(256 + k))
    return {
        "space_kept": (_table([b for b in range(256) if chr(b).isprintable()],
                              lambda k, b: chr(256 + k)),
                       "the space maps to itself: it prints, but GPT-2 moves it (a line of "
                       "merges.txt separates its two tokens by a space), so byte 32 is 'Ġ'."),
        "plus_b": (_table(_printable(), lambda k, b: chr(256 + b)),
                   "the moved bytes map to chr(256 + b): they take chr(256), chr(257), ... in "
                   "turn, chr(256 + k) for the k-th moved byte (byte 127 is the 34th moved, "
                   "so chr(256 + 33) = chr(289))."),
        "all_moved": ({b: chr(256 + b) for b in range(256)},
                      "printable bytes were moved too: the 188 bytes that print ('!' to '~', "
                      "'¡' to '¬', '®' to 'ÿ') keep their own character, chr(b); only the other "
                      "68 move."),
        "all_moved_k": (_table([], lambda k, b: chr(256 + k)),
                        "printable bytes were moved too: the 188 bytes that print ('!' to '~', "
                        "'¡' to '¬', '®' to 'ÿ') keep their own character, chr(b); only the other "
                        "68 move."),
        "exclusive": (_table([*range(ord("!"), ord("~")), *range(ord("¡"), ord("¬")),
                              *range(ord("®"), ord("ÿ"))], lambda k, b: chr(256 + k)),
                      "the last byte of each printable range was moved: '~', '¬' and 'ÿ' are "
                      "printable too (range(ord('!'), ord('~') + 1): the end of range() is "
                      "left out)."),
        "byte_order": (dict(sorted(right.items())),
                       "the bytes are in byte order: GPT-2's dict lists the 188 printable "
                       "bytes first, then the 68 moved ones (the order of cl100k_base's first "
                       "256 ids)."),
        "reverse_moved": (_table(_printable(), lambda k, b: chr(256 + 67 - k)),
                          "the moved bytes take chr(256), chr(257), ... in increasing byte "
                          "order: byte 0 is chr(256), the soft hyphen (173) the last, chr(323)."),
    }


def recognize_byte_map(inputs: dict, expected, got):
    """Which learner's byte map gives what came back: the case's last line is evaluated on
    each mistake, modelled (`_byte_map_mistakes`)."""
    last = inputs.get("last")
    if not last or got == expected:
        return None
    safe = {"sorted": sorted, "len": len, "set": set, "list": list, "range": range,
            "ord": ord, "chr": chr}
    fits = []
    for kind, (table, words) in _byte_map_mistakes().items():
        try:
            value = eval(last, {"__builtins__": safe, "bytes_to_unicode": lambda t=table: t})
        except Exception:                    # a line this model cannot answer
            continue
        if value == got and all(words != seen for _, seen in fits):
            fits.append((kind, words))
    if not fits:
        return None
    return fits[0][0], " Or: ".join(words for _, words in fits)


# -- exercise 2: reading the pair of files ----------------------------------------------------

READ_SETUP = ("import pathlib, tempfile\n"
              "folder = pathlib.Path(tempfile.mkdtemp())\n"
              "(folder / 'vocab.json').write_text(VOCAB_JSON, encoding='utf-8')\n"
              "(folder / 'merges.txt').write_text(MERGES_TXT, encoding='utf-8')\n"
              "vocab, merges = read_vocab_merges(folder / 'vocab.json', folder / 'merges.txt')")


def read_groups() -> list[Group]:
    from ...openai import gpt2_files
    vocab, merges = toy()
    vocab_json, merges_txt = files_of(vocab, merges, sort_keys=True)
    back = ("Map every character of a token back to its byte with the inverse of "
            "bytes_to_unicode ({c: b for b, c in bytes_to_unicode().items()}): 'Ġthe' is "
            "b' the'. Not .encode('utf-8'), which gives 'Ġ' two bytes of its own.")
    line = ("Each line of merges.txt after '#version: 0.2' is one merge: two tokens separated "
            "by one space, in the order they were learned. Return each as a tuple of bytes.")
    every = ("Keep every entry of vocab.json, also those no merge makes: <|endoftext|> (here "
             f"id {TOY_SIZE - 1}) decodes, though no merge produces it.")
    ids = ("Take the ids from vocab.json: a token's id is its value there, whatever the "
           "order (in GPT-2's file, id 0 is '!', not byte 0).")
    eot = TOY_SIZE - 1
    first_space = next(k for k, (a, b) in enumerate(merges) if b" " in a + b)
    non_utf8 = next(k for k, (a, b) in enumerate(merges)
                    if not _is_utf8(a) and not _is_utf8(b))
    # shown as code that rebuilds them (the files of train_bpe(TOY_TEXT, TOY_SIZE,
    # ['<|endoftext|>']), vocab.json's tokens in the order of their text), so that a failing
    # case pasted into the worksheet runs
    env = {"VOCAB_JSON": vocab_json, "MERGES_TXT": merges_txt}
    doc = {"VOCAB_JSON": "bpe_course.classroom.worksheets.ws08.toy_files()[0]",
           "MERGES_TXT": "bpe_course.classroom.worksheets.ws08.toy_files()[1]"}
    gpt2 = {"VOCAB_JSON": gpt2_files.encoder_json().decode("utf-8"),
            "MERGES_TXT": gpt2_files.vocab_bpe().decode("utf-8")}
    gpt2_doc = {"VOCAB_JSON": "bpe_course.openai.gpt2_files.encoder_json().decode('utf-8')",
                "MERGES_TXT": "bpe_course.openai.gpt2_files.vocab_bpe().decode('utf-8')"}
    return [
        Group(_wrong([
            Case("[type(x).__name__ for x in (vocab, merges, merges[0], merges[0][0])]",
                 "vocab is a dict {id: bytes}; merges a list of (bytes, bytes) tuples."),
            Case("len(vocab), len(merges)", every),
            Case("sorted(vocab.items())", back + " " + ids, weight=5),
            Case("vocab[32]", back),
            Case("[vocab[b] for b in range(127, 161)] + [vocab[173]]", back),
            Case("merges[:3]", line),
            Case(f"merges[{first_space}]", back),
            Case(f"merges[{non_utf8}]", back + " A token may be half a character: b'\\xc3' "
                 "alone is not UTF-8, and bytes() keeps it as it is."),
            Case(f"vocab[{eot}]", every),
            Case("merges", line, weight=5),
        ]), setup=READ_SETUP, env=env, env_doc=doc),
        Group(_wrong([
            Case("len(vocab), len(merges)", every, weight=5),
            Case("vocab[0], vocab[188], vocab[220], vocab[50256]", ids, weight=5),
            Case("merges[:5] + merges[-3:]", line, weight=5),
            Case("sorted(vocab.items())[::997]", back, weight=REAL),
        ]), setup=READ_SETUP, env=gpt2, env_doc=gpt2_doc, time_limit=60),
    ]


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _as_str(x):
    """bytes as GPT-2's characters, inside lists, tuples and dicts (the answer of a reader
    that kept the strings)."""
    from ...openai.byte_map import token_to_str
    if isinstance(x, bytes):
        return token_to_str(x)
    if isinstance(x, tuple):
        return tuple(_as_str(v) for v in x)
    if isinstance(x, list):
        return [_as_str(v) for v in x]
    return x


def _as_utf8(x):
    """bytes as a reader that encodes GPT-2's characters with UTF-8 gets them."""
    from ...openai.byte_map import token_to_str
    if isinstance(x, bytes):
        return token_to_str(x).encode("utf-8")
    if isinstance(x, tuple):
        return tuple(_as_utf8(v) for v in x)
    if isinstance(x, list):
        return [_as_utf8(v) for v in x]
    return x


def _leaves(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _leaves(v)
    else:
        yield x


def recognize_read(inputs: dict, expected, got):
    """Tokens kept as GPT-2's strings, encoded with UTF-8, or an entry lost."""
    if expected == ["dict", "list", "tuple", "bytes"] and isinstance(got, list) and \
            got[:3] == expected[:3] and got[3:] == ["str"]:
        return ("merges_str", "the merges are kept as str: map each character back to its "
                "byte, so that a merge is a tuple of bytes ((b' ', b't'), not ('Ġ', 't')).")
    if got != expected and any(isinstance(v, bytes) for v in _leaves(expected)):
        if got == _as_str(expected):
            return ("kept_str", "the tokens are kept as GPT-2's characters (str): map each "
                    "character back to its byte with the inverse of bytes_to_unicode "
                    "('Ġthe' is b' the').")
        if got == _as_utf8(expected):
            return ("utf8", "the tokens were encoded with UTF-8 ('Ġ'.encode() is "
                    "b'\\xc4\\xa0'): map each character back to its one byte with the inverse "
                    "of bytes_to_unicode ('Ġ' is b' ').")
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == len(expected) \
            == 2 and all(isinstance(v, int) for v in got) and got[1] == expected[1] \
            and got[0] < expected[0]:
        return ("lost_entry", f"{expected[0] - got[0]} entr(ies) of vocab.json are lost: "
                "keep every entry, also those no merge makes (<|endoftext|>, which decodes "
                "though no merge produces it).")
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected) \
            and got and all(isinstance(p, tuple) and len(p) == 2 for p in got + expected) \
            and [i for i, _ in got] == [i for i, _ in expected] \
            and sorted(v for _, v in got if isinstance(v, bytes)) == sorted(
                v for _, v in expected if isinstance(v, bytes)):
        return ("ids", "the tokens are right but sit at other ids: take each id from "
                "vocab.json, do not number the tokens yourself.")
    return None


# -- exercise 3: writing them back -------------------------------------------------------------

WRITE_SETUP = ("import json, pathlib, tempfile\n"
               "folder = pathlib.Path(tempfile.mkdtemp())\n"
               "write_vocab_merges(VOCAB, MERGES, folder)\n"
               "written = json.loads((folder / 'vocab.json').read_text(encoding='utf-8'))\n"
               "lines = [line for line in (folder / 'merges.txt').read_text(encoding='utf-8')"
               ".splitlines() if line and not line.startswith('#version')]")


def write_groups() -> list[Group]:
    vocab, merges = toy()
    chars = ("Write each token's bytes with bytes_to_unicode, byte by byte: b' the' is "
             "'Ġthe'. Not .decode('utf-8') or .decode('latin-1'): a token may be half a "
             "character, and a space or newline must not appear in the files.")
    line = ("merges.txt: '#version: 0.2', then one line per merge in the order of `merges`, "
            "its two tokens written with bytes_to_unicode and separated by one space.")
    every = ("vocab.json maps every token of `vocab` (written with bytes_to_unicode) to its "
             "id, <|endoftext|> too, though no merge makes it.")
    first_space = next(k for k, (a, b) in enumerate(merges) if b" " in a + b)
    doc = f"train_bpe({TOY_TEXT!r}, {TOY_SIZE}, ['<|endoftext|>'])"
    env = {"VOCAB": vocab, "MERGES": merges}
    env_doc = {"VOCAB": doc + "[0]", "MERGES": doc + "[1]"}
    cs336 = {0: EOT.encode(), **{i + 1: t for i, t in vocab.items() if t != EOT.encode()}}
    return [
        Group(_wrong([
            Case("len(written)", every),
            Case("sorted(written)", chars),
            Case("written.get('Ġ'), written.get('Ċ'), written.get('ĉ')", chars),
            Case(f"written.get({EOT!r})", every),
            Case("lines", line + " " + chars, weight=5),
            Case(f"lines[{first_space}]", chars),
            Case("sorted(written.items())", chars, weight=5),
        ]), setup=WRITE_SETUP, env=env, env_doc=env_doc),
        Group(_wrong([
            Case(f"written.get({EOT!r}), written.get('Ġ'), len(written)",
                 "Write each token's own id: here <|endoftext|> is 0 and every byte one id "
                 "higher than its value (CS336's order)."),
            Case("sorted(written.items())", every, weight=5),
        ]), setup=WRITE_SETUP, env={"VOCAB": cs336, "MERGES": merges},
            env_doc={"VOCAB": f"{{0: b'<|endoftext|>', **{{i + 1: t for i, t in {doc}[0]"
                              f".items() if t != b'<|endoftext|>'}}}}", "MERGES": doc + "[1]"}),
    ]


def recognize_write(inputs: dict, expected, got):
    """Tokens written with Latin-1 or UTF-8 instead of GPT-2's map, ids and tokens swapped,
    an entry lost, merges in another order."""
    from ...openai.byte_map import str_to_token

    def alternatives(text: str) -> dict[str, str]:
        try:
            data = str_to_token(text)
        except ValueError:
            return {}
        return {"latin1": data.decode("latin-1"),
                "utf8": data.decode("utf-8", errors="replace")}

    def rewrite(x, how):
        if isinstance(x, str):
            return " ".join(alternatives(p).get(how, p) for p in x.split(" ")) if " " in x \
                and not x.startswith(" ") else alternatives(x).get(how, x)
        if isinstance(x, (list, tuple)):
            return type(x)(rewrite(v, how) for v in x)
        return x
    if got == expected:
        return None
    for how, words in (("latin1", "with Latin-1 (.decode('latin-1'))"),
                       ("utf8", "with UTF-8 (.decode('utf-8'))")):
        other = rewrite(expected, how)
        if got == other or (isinstance(got, list) and isinstance(other, list) and
                            sorted(map(repr, got)) == sorted(map(repr, other))):
            return ("not_the_map", f"the tokens were written {words}, not with GPT-2's map: "
                    "a space or newline then appears in the files, and bytes that are half a "
                    "character are lost. Write each byte as bytes_to_unicode()[b].")
    if isinstance(expected, list) and isinstance(got, list) and sorted(
            map(repr, got)) == sorted(map(repr, expected)):
        return ("merge_order", "the merges are in another order: write them in the order of "
                "`merges` (their rank), one per line.")
    if isinstance(expected, int) and isinstance(got, int) and got < expected:
        return ("lost_entry", f"{expected - got} token(s) of `vocab` are missing from "
                "vocab.json: write every entry, <|endoftext|> too, though no merge makes it.")
    if isinstance(expected, list) and isinstance(got, list) and got and all(
            (isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and
             p[0].isdigit()) or (isinstance(p, str) and p.isdigit()) for p in got):
        return ("inverted", "vocab.json is written id -> token: GPT-2's file maps each token "
                "(a str) to its id, {'Ġthe': 262, ...}.")
    return None


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def _trained(rng):
    """A tokenizer trained on a random page of prose, its ids in one of three orders."""
    from ...training.trainer import train_bpe
    from .common import random_prose
    text, doc = random_prose(rng, rng.randrange(1500, 3000))
    size = rng.randrange(290, 340)
    vocab, merges = train_bpe(text + EOT + "\n\tx\n", size, [EOT])
    order = rng.choice(["course", "cs336", "shuffled"])
    tokens = [vocab[i] for i in sorted(vocab)]
    if order == "cs336":
        tokens = [EOT.encode()] + [t for t in tokens if t != EOT.encode()]
    elif order == "shuffled":
        rng.shuffle(tokens)
    vocab = dict(enumerate(tokens))
    return vocab, merges, f"train_bpe({doc} + '<|endoftext|>\\n\\tx\\n', {size}, ['<|endoftext|>'])"


def _byte_map_hidden(rng):
    some = sorted(rng.sample(range(256), 40))
    return [Group(_wrong([
        Case(f"[bytes_to_unicode()[b] for b in {some!r}]", "188 printable bytes keep chr(b); "
             "the other 68 take chr(256 + k) in byte order."),
        Case(f"[b for b, c in bytes_to_unicode().items() if c == chr({rng.randrange(256, 324)})]",
             "The k-th moved byte gets chr(256 + k)."),
        Case(f"list(bytes_to_unicode())[{rng.randrange(150, 200)}:]", "Printable bytes "
             "first, then the moved ones, each part in byte order."),
    ]))]


def _read_hidden(rng):
    groups = []
    for _ in range(2):
        vocab, merges, doc = _trained(rng)
        sort_keys = rng.random() < 0.5
        vocab_json, merges_txt = files_of(vocab, merges, sort_keys)
        how = (f"the files write_vocab_merges writes for {doc}, its ids in another order"
               + (", vocab.json's tokens in the order of their text" if sort_keys else ""))
        groups.append(Group(_wrong([
            Case("sorted(vocab.items())", "Map every character back to its byte; keep every "
                 "entry with its id from vocab.json.", weight=REAL),
            Case("merges", "One merge per line, as a tuple of bytes, in order.", weight=REAL),
        ]), setup=READ_SETUP, env={"VOCAB_JSON": vocab_json, "MERGES_TXT": merges_txt},
            # drawn for this run with its ids shuffled: no short code rebuilds it, so the
            # case shows what it was (`...` stands for the value)
            env_doc={"VOCAB_JSON": f"...  # {how}", "MERGES_TXT": f"...  # {how}"}))
    return groups


def _write_hidden(rng):
    groups = []
    for _ in range(2):
        vocab, merges, doc = _trained(rng)
        groups.append(Group(_wrong([
            Case("sorted(written.items())", "Every token, written with bytes_to_unicode, "
                 "with its own id.", weight=REAL),
            Case("lines", "One merge per line, in order, written with bytes_to_unicode.",
                 weight=REAL),
        ]), setup=WRITE_SETUP, env={"VOCAB": vocab, "MERGES": merges},
            env_doc={"VOCAB": f"...  # {doc}[0], its ids in another order",
                     "MERGES": f"{doc}[1]"}))
    return groups


NOTEBOOK_HELPERS = ("bpe_course.training", "bpe_course.regex_tokenizer", "bpe_course.base",
                    "bpe_course.pairs", "bpe_course.pretokenize", "bpe_course.special",
                    "bpe_course.text")


WORKSHEET = Worksheet(
    "08_files_and_vocabularies",
    points={"bytes_to_unicode": 1, "read_vocab_merges": 2, "write_vocab_merges": 2},
    checkers=[
        Checker("bytes_to_unicode", "bytes_to_unicode", "function",
                course_ref(REF + "bytes_to_unicode"), bytes_to_unicode_groups,
                recognize=recognize_byte_map),
        Checker("read_vocab_merges", "read_vocab_merges", "function",
                course_ref(REF + "read_vocab_merges"), read_groups, recognize=recognize_read),
        Checker("write_vocab_merges", "write_vocab_merges", "function",
                course_ref(REF + "write_vocab_merges"), write_groups,
                recognize=recognize_write),
    ],
    # The worksheet trains a tokenizer (chapter 07's train_bpe) and builds the course's
    # tokenizer from it to compare ids: neither writes or reads GPT-2's characters.
    helpers={name: NOTEBOOK_HELPERS for name in
             ("bytes_to_unicode", "read_vocab_merges", "write_vocab_merges")},
    # (byte_map's bytes_to_unicode stays: the module builds its tables with it on import;
    # the rules read from the source keep it out of answers.)
    answers=("bpe_course.files.huggingface.save_vocab_merges",
             "bpe_course.files.huggingface.load_vocab_merges"),
    hidden={"bytes_to_unicode": _byte_map_hidden, "read_vocab_merges": _read_hidden, "write_vocab_merges": _write_hidden},
)
