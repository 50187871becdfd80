"""Worksheet 14, tokenizers in a model's pipeline: what a training loop does around a tokenizer.

`align_labels` (word labels onto tokens through `word_ids`, -100 where the loss must not
look), `entity_spans` (a model's token labels back to entities in the text, through
`word_ids` and offsets) and `pad_batch` (a padding collator: a batch of rows made
rectangular, with the attention mask). All three take plain lists, as a fast tokenizer
returns them, so the checkers need no `transformers`: the worksheet's inputs are the
chapter's (all-MiniLM-L6-v2's tokens of two sentences, written out here) and small cases;
the hidden ones are drawn per grading run (random words cut into random tokens, windows
that start inside a word, random batches).
"""

from __future__ import annotations

import random

from .common import CONTRACT, REF, WRONG, Case, Checker, Group, Worksheet, course_ref, unchanged

IGNORE = -100

# all-MiniLM-L6-v2's tokenizer (chapter 14) on two sentences: word ids and offsets, as
# `tok(text, return_offsets_mapping=True)` gives them (transformers 5.24 and 4.57).
SOSEKI = "Natsume Sōseki wrote Botchan in Matsuyama in 1906."
SOSEKI_WORDS = [None, 0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 5, 5, 6, 7, 8, None]
SOSEKI_OFFSETS = [(0, 0), (0, 3), (3, 7), (8, 10), (10, 12), (12, 14), (15, 20), (21, 24),
                  (24, 28), (29, 31), (32, 36), (36, 38), (38, 41), (42, 44), (45, 49),
                  (49, 50), (0, 0)]
ZOE = "Zoë Müller sang at the Tokyo Dome in March 2019."
ZOE_WORDS = [None, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, None]
ZOE_OFFSETS = [(0, 0), (0, 3), (4, 10), (11, 15), (16, 18), (19, 22), (23, 28), (29, 33),
               (34, 36), (37, 42), (43, 47), (47, 48), (0, 0)]
# the chapter's batch: "Tokenizers are fast.", "Padding makes a batch rectangular.", "Hi!"
BATCH = [[101, 19204, 17629, 2015, 2024, 3435, 1012, 102],
         [101, 11687, 4667, 3084, 1037, 14108, 10806, 1012, 102], [101, 7632, 999, 102]]


def _wrong(cases: list[Case]) -> list[Case]:
    for case in cases:
        case.breaks = WRONG
    return cases


def _first_match(variants, inputs: dict, expected, got):
    """The first (kind, sentence) whose variant, run on the case's inputs, gives `got` (and
    not the right answer: a mistake that changes nothing on these inputs says nothing)."""
    args, kwargs = inputs.get("args") or [], inputs.get("kwargs") or {}
    for kind, sentence, variant in variants:
        try:
            answer = variant(*args, **kwargs)
        except Exception:          # a variant that cannot run on these inputs says nothing
            continue
        if answer == got and answer != expected:
            return kind, sentence
    return None


# -- exercise 1: align_labels -------------------------------------------------------------------

FIRST = ("The first token of each word gets the word's label (word_labels[word]); the other "
         "tokens of the word, and the special tokens (word id None), get -100.")


def align_labels_groups() -> list[Group]:
    soseki_labels = [1, 2, 0, 5, 0, 3, 0, 0, 0]
    cases = [
        Case("align_labels([], [])", "No tokens, no labels: []."),
        Case("align_labels([None, None], [])", "[CLS] and [SEP] only: -100 for each."),
        *_wrong([
            Case(f"align_labels({SOSEKI_WORDS!r}, {soseki_labels!r})", FIRST),
            Case("align_labels([None, 0, 0, 0, 0, None], [3])", FIRST),
            Case("align_labels([0, 1, 1], [0, 0])", "Label 0 ('O') is a label like any other: "
                 "the first token of a word labelled 0 gets 0, not -100."),
            Case("align_labels([None, 4, 4, 5, 6, 6, None], [0, 1, 2, 3, 4, 5, 6])",
                 "A window of a long text (stride) can start inside word 4: word ids index "
                 "word_labels directly, and a window's first token starts a word there."),
            Case(f"align_labels({ZOE_WORDS!r}, [1, 2, 0, 0, 0, 3, 4, 0, 0, 0, 0])", FIRST),
        ]),
        unchanged("align_labels", ([None, 0, 0, 1, None], [5, 6]), 0,
                  "Return a new list: leave word_ids as it was (the tokenizer's output may "
                  "serve again).", params=("word_ids", "word_labels")),
    ]
    hidden = _wrong([Case("align_labels([None, 0, 1, 1, 2, None, 0, 0, 1, None], [4, 0, 3])",
                          "A pair of texts: each text's words are numbered from 0 again, and "
                          "the [SEP] between them (None) ends the last word."),
                     Case("align_labels([2, 2, 3, None], [0, 0, 1, 2])", FIRST)])
    return [Group(cases), Group(hidden, hidden=True)]


def _align_variants():
    def every_token(words, labels):
        return [IGNORE if w is None else labels[w] for w in words]

    def specials_zero(words, labels):
        out, prev = [], None
        for w in words:
            out.append(0 if w is None else IGNORE if w == prev else labels[w])
            prev = w
        return out

    def by_order(words, labels):
        out, prev, k = [], None, -1
        for w in words:
            if w is not None and w != prev:
                k += 1
            out.append(IGNORE if w is None or w == prev else labels[k])
            prev = w
        return out

    def truthy(words, labels):
        out, prev = [], None
        for w in words:
            out.append(IGNORE if not w or w == prev else labels[w])
            prev = w
        return out

    def minus_one(words, labels):
        out, prev = [], None
        for w in words:
            out.append(-1 if w is None or w == prev else labels[w])
            prev = w
        return out

    def last_token(words, labels):
        out = []
        for k, w in enumerate(words):
            last = k + 1 == len(words) or words[k + 1] != w
            out.append(labels[w] if w is not None and last else IGNORE)
        return out

    def zero_label_ignored(words, labels):
        out, prev = [], None
        for w in words:
            out.append(IGNORE if w is None or w == prev or not labels[w] else labels[w])
            prev = w
        return out

    return [
        ("every_token", "every token of a word got the word's label: only its first token "
         "gets it, the others -100 (or the loss counts long words several times).", every_token),
        ("specials_zero", "the special tokens got 0 ('O'): give them -100, which the loss "
         "skips; [CLS] and [SEP] are no word.", specials_zero),
        ("by_order", "the labels were taken in the order the words appear: word ids index "
         "word_labels directly (a window may start at word 4), use word_labels[word].",
         by_order),
        ("word_zero", "word 0 was taken for a special token: test `word is None`, since "
         "`not word` is also true for word 0.", truthy),
        ("minus_one", "-1 is not the value the loss skips: PyTorch's cross-entropy ignores "
         "-100 (its ignore_index).", minus_one),
        ("last_token", "the label went to the last token of each word: it goes to the first.",
         last_token),
        ("zero_ignored", "words labelled 0 ('O') got -100: 0 is a label the model must learn "
         "too; only continuation and special tokens get -100.", zero_label_ignored),
    ]


def recognize_align(inputs: dict, expected, got):
    args = inputs.get("args") or []
    if len(args) != 2 or not isinstance(args[0], list) or not isinstance(args[1], list) \
            or got == expected:
        return None
    return _first_match(_align_variants(), inputs, expected, got)


# -- exercise 2: entity_spans -------------------------------------------------------------------

SPANS = ("Each word takes its first token's label and spans from its first token's start to "
         "its last token's end; an entity is a word labelled B-X or I-X and the words right "
         "after it labelled I-X. Return (X, start, end) for each, in order.")


def entity_spans_groups() -> list[Group]:
    predicted = ["O", "B-PER", "B-PER", "I-PER", "I-PER", "O", "O", "B-MISC", "I-MISC", "O",
                 "B-LOC", "I-LOC", "O", "O", "O", "O", "O"]
    zoe = ["O", "B-PER", "I-PER", "O", "O", "O", "B-LOC", "I-LOC", "O", "O", "O", "O", "O"]
    words, offsets = [None, 0, 1, 2, None], [(0, 0), (0, 3), (4, 7), (8, 11), (0, 0)]
    cases = [
        Case("entity_spans([], [], [])", "No tokens, no entities: []."),
        Case(f"entity_spans(['O', 'O', 'O', 'O', 'O'], {words!r}, {offsets!r})",
             "No word is labelled B- or I-: []."),
        *_wrong([
            Case(f"entity_spans({predicted!r}, {SOSEKI_WORDS!r}, {SOSEKI_OFFSETS!r})", SPANS),
            Case(f"entity_spans({zoe!r}, {ZOE_WORDS!r}, {ZOE_OFFSETS!r})", SPANS),
            Case(f"entity_spans(['O', 'B-PER', 'B-PER', 'I-PER', 'O'], {words!r}, {offsets!r})",
                 "A B- label starts a new entity, even right after one of the same type."),
            Case(f"entity_spans(['O', 'B-PER', 'O', 'I-PER', 'O'], {words!r}, {offsets!r})",
                 "An entity goes on only with the words right after it: an O word ends it."),
            Case(f"entity_spans(['O', 'B-PER', 'I-LOC', 'I-LOC', 'O'], {words!r}, {offsets!r})",
                 "I-LOC after a PER word does not continue the person: it starts a place."),
            Case(f"entity_spans(['O', 'I-ORG', 'I-ORG', 'O', 'O'], {words!r}, {offsets!r})",
                 "An I-X that follows no entity of type X starts one (as conlleval reads "
                 "BIO labels): keep it."),
            Case("entity_spans(['B-PER', 'B-LOC', 'O', 'O', 'I-LOC'], "
                 f"{words!r}, {offsets!r})",
                 "Special tokens (word id None) are no word: whatever label the model gave "
                 "them, leave them out."),
        ]),
    ]
    hidden = _wrong([
        Case("entity_spans(['O', 'B-LOC', 'O', 'O', 'O', 'B-PER', 'O', 'O'], "
             "[None, 0, 0, 0, 1, 2, 2, None], "
             "[(0, 0), (0, 4), (4, 6), (6, 9), (10, 12), (13, 16), (16, 18), (0, 0)])",
             "A word's label is its first token's; its end is its last token's end."),
    ])
    return [Group(cases), Group(hidden, hidden=True)]


def _spans_variants():
    ref = course_ref(REF + "entity_spans")

    def per_word(labels, words, offsets, end_of="last", which="first"):
        found: dict = {}
        for label, word, (start, end) in zip(labels, words, offsets):
            if word is None:
                continue
            if word in found:
                if end_of == "last":
                    found[word][2] = end
                if which == "last":
                    found[word][0] = label
            else:
                found[word] = [label, start, end]
        return list(found.values())

    def joined(items, rule, keep_stray=True):
        entities, previous = [], "O"
        for label, start, end in items:
            if rule(label, previous) and entities:
                entities[-1] = (entities[-1][0], entities[-1][1], end)
            elif label != "O" and (keep_stray or not label.startswith("I-")):
                entities.append((label[2:], start, end))
            previous = label
        return entities

    def first_end(labels, words, offsets):
        return joined(per_word(labels, words, offsets, end_of="first"), _continues)

    def last_label(labels, words, offsets):
        return joined(per_word(labels, words, offsets, which="last"), _continues)

    def by_token(labels, words, offsets):
        items = [[lab, s, e] for lab, w, (s, e) in zip(labels, words, offsets) if w is not None]
        return joined(items, _continues)

    def across_o(labels, words, offsets):
        entities, current = [], None
        for label, start, end in per_word(labels, words, offsets):
            if label.startswith("I-") and current == label[2:] and entities:
                entities[-1] = (entities[-1][0], entities[-1][1], end)
            elif label != "O":
                entities.append((label[2:], start, end))
                current = label[2:]
        return entities

    def any_type(labels, words, offsets):
        return joined(per_word(labels, words, offsets),
                      lambda label, previous: label.startswith("I-") and previous != "O")

    def strict(labels, words, offsets):
        return joined(per_word(labels, words, offsets), _continues, keep_stray=False)

    def b_continues(labels, words, offsets):
        return joined(per_word(labels, words, offsets),
                      lambda label, previous: label != "O" and previous[2:] == label[2:])

    def with_specials(labels, words, offsets):
        numbered = [w if w is not None else ("special", k) for k, w in enumerate(words)]
        return ref()(labels, numbered, offsets)

    return [
        ("word_end", "each entity ends at the end of its word's first token: a word runs to "
         "its last token's end (`so ##se ##ki` is all of 'Sōseki').", first_end),
        ("last_label", "each word took its last token's label: take its first token's, as "
         "training labelled only first tokens.", last_label),
        ("token_labels", "the labels were read token by token: a word's other tokens may "
         "carry other labels; each word takes its first token's label only.", by_token),
        ("across_o", "an entity went on across an O word: it goes on only with the words "
         "right after it.", across_o),
        ("any_type", "an I- label continued an entity of another type: I-LOC after a person "
         "starts a place.", any_type),
        ("stray_i", "an I-X that follows no entity of type X was dropped: it starts an "
         "entity (as conlleval reads BIO labels).", strict),
        ("b_continues", "a B- label continued the entity before it: B- always starts a new "
         "one.", b_continues),
        ("specials", "special tokens were read as words: leave out the tokens whose word id "
         "is None.", with_specials),
    ]


def _continues(label, previous):
    return label.startswith("I-") and previous[2:] == label[2:]


def recognize_spans(inputs: dict, expected, got):
    args = inputs.get("args") or []
    if len(args) != 3 or not all(isinstance(a, list) for a in args) or got == expected:
        return None
    return _first_match(_spans_variants(), inputs, expected, got)


# -- exercise 3: pad_batch ----------------------------------------------------------------------

PAD = ("Pad every row to the longest row of the batch: input_ids with pad_id, labels (when the "
       "features have them) with -100; attention_mask is 1 for each real token and 0 for each "
       "pad; `side` says where the pads go.")


def pad_batch_groups() -> list[Group]:
    batch = [{"input_ids": ids} for ids in BATCH]
    labelled = [{"input_ids": [101, 7, 8, 102], "labels": [-100, 3, 4, -100]},
                {"input_ids": [101, 9, 102], "labels": [-100, 0, -100]}]
    cases = [
        Case("pad_batch([], 0)", "An empty batch: {'input_ids': [], 'attention_mask': []}."),
        Case("pad_batch([{'input_ids': [101, 102]}], 0)",
             "One row is already as long as the longest: no padding, a mask of 1s."),
        *_wrong([
            Case(f"pad_batch({batch!r}, 0)", PAD),
            Case(f"pad_batch({batch!r}, 0, side='left')",
                 "side='left': the pads go before the tokens, and the row keeps its order."),
            Case("pad_batch([{'input_ids': [5, 6, 7]}, {'input_ids': [8]}], 50256)",
                 "Pad with the pad_id you are given (GPT-2 style models often pad with "
                 "<|endoftext|>, 50256)."),
            Case(f"pad_batch({labelled!r}, 0)", "Labels are padded with -100, which the loss "
                 "skips, not with pad_id."),
            Case(f"pad_batch({labelled!r}, 0, side='left')", PAD),
        ]),
        Case("pad_batch([{'input_ids': [1]}], 0, side='middle')",
             "side is 'right' or 'left': anything else is a ValueError naming side.",
             mention="side", breaks=CONTRACT),
        unchanged("pad_batch", ([{"input_ids": [1, 2, 3]}, {"input_ids": [4]}], 0), 0,
                  "Return new rows: leave the features as they were (the dataset keeps "
                  "them, and pads them again in the next epoch).", params=("features", "pad_id")),
    ]
    hidden = _wrong([
        Case("pad_batch([{'input_ids': [1], 'labels': [5]}, "
             "{'input_ids': [2, 3, 4, 5], 'labels': [6, 7, 8, 9]}], 3, 'left')", PAD),
        Case("pad_batch([{'input_ids': [4, 4]}, {'input_ids': [4, 4]}], 4)",
             "Rows of equal length need no padding."),
    ])
    return [Group(cases), Group(hidden, hidden=True)]


def _pad_variants():
    ref = course_ref(REF + "pad_batch")

    def labels_with_pad(features, pad_id, side="right"):
        out = ref()([{"input_ids": f["input_ids"]} for f in features], pad_id, side)
        if features and "labels" in features[0]:
            out["labels"] = ref()([{"input_ids": f["labels"]} for f in features], pad_id,
                                  side)["input_ids"]
        return out

    def mask_inverted(features, pad_id, side="right"):
        out = ref()(features, pad_id, side)
        out["attention_mask"] = [[1 - m for m in row] for row in out["attention_mask"]]
        return out

    def side_ignored(features, pad_id, side="right"):
        return ref()(features, pad_id, "right")

    def left_reversed(features, pad_id, side="right"):
        out = ref()(features, pad_id, "right")
        if side == "left":
            out = {k: [row[::-1] for row in rows] for k, rows in out.items()}
        return out

    def no_mask(features, pad_id, side="right"):
        out = ref()(features, pad_id, side)
        del out["attention_mask"]
        return out

    def mask_of_ids(features, pad_id, side="right"):
        out = ref()(features, pad_id, side)
        out["attention_mask"] = [[int(i != pad_id) for i in row] for row in out["input_ids"]]
        return out

    return [
        ("labels_pad", "the labels were padded with pad_id: pad them with -100, so that the "
         "loss skips the padding.", labels_with_pad),
        ("mask_inverted", "the attention mask is upside down: 1 for a real token, 0 for a "
         "pad.", mask_inverted),
        ("side", "the pads went to the right whatever `side` said: side='left' puts them "
         "before the tokens.", side_ignored),
        ("reversed", "the left-padded rows came back reversed: put the pads before the "
         "tokens and keep the tokens' order.", left_reversed),
        ("no_mask", "there is no attention_mask: return it beside input_ids.", no_mask),
        ("mask_from_ids", "the mask was made by comparing ids with pad_id: a real token can "
         "have the pad's id (GPT-2 style models pad with <|endoftext|>); the mask follows "
         "each row's length.", mask_of_ids),
    ]


def recognize_pad(inputs: dict, expected, got):
    args = inputs.get("args") or []
    if not 2 <= len(args) <= 3 or not isinstance(args[0], list) or got == expected:
        return None
    return _first_match(_pad_variants(), inputs, expected, got)


# -- hidden cases drawn afresh for each grading run (see worksheets.groups_for) -----------------

def random_words(rng: random.Random, n_words: int) -> tuple[list, list]:
    """Word ids and offsets of a made-up text of `n_words` words, each cut into 1 to 4
    tokens, between [CLS] and [SEP]; sometimes a window that starts inside a word."""
    words, offsets, at = [None], [(0, 0)], 0
    for word in range(n_words):
        for _ in range(rng.randrange(1, 5)):
            size = rng.randrange(1, 5)
            words.append(word)
            offsets.append((at, at + size))
            at += size
        at += 1                                  # the space after the word
    words.append(None)
    offsets.append((0, 0))
    if rng.random() < 0.5 and len(words) > 4:   # a window of a long text: cut its start
        cut = rng.randrange(1, len(words) - 2)
        words, offsets = [None] + words[cut:], [(0, 0)] + offsets[cut:]
    return words, offsets


def _align_hidden(rng):
    cases = []
    for _ in range(12):
        n = rng.randrange(1, 12)
        words, _ = random_words(rng, n)
        labels = [rng.randrange(0, 7) for _ in range(n)]
        cases.append(Case(f"align_labels({words!r}, {labels!r})", FIRST))
    return [Group(_wrong(cases))]


def _spans_hidden(rng):
    kinds = ["PER", "LOC", "ORG", "MISC"]
    cases = []
    for _ in range(12):
        words, offsets = random_words(rng, rng.randrange(1, 10))
        labels = [rng.choice(["O", "O", f"B-{rng.choice(kinds)}", f"I-{rng.choice(kinds)}"])
                  for _ in words]
        cases.append(Case(f"entity_spans({labels!r}, {words!r}, {offsets!r})", SPANS))
    return [Group(_wrong(cases))]


def _pad_hidden(rng):
    cases = []
    for _ in range(10):
        rows = [[rng.randrange(0, 30000) for _ in range(rng.randrange(1, 9))]
                for _ in range(rng.randrange(1, 5))]
        labelled = rng.random() < 0.5
        features = [{"input_ids": r, **({"labels": [rng.randrange(-1, 9) for _ in r]}
                                         if labelled else {})} for r in rows]
        side = rng.choice(["right", "left"])
        cases.append(Case(f"pad_batch({features!r}, {rng.randrange(0, 3)}, side={side!r})", PAD))
    return [Group(_wrong(cases))]


WORKSHEET = Worksheet(
    "14_tokenizers_in_transformers",
    points={"align_labels": 1, "entity_spans": 2, "pad_batch": 2},
    checkers=[
        Checker("align_labels", "align_labels", "function", course_ref(REF + "align_labels"),
                align_labels_groups, recognize=recognize_align),
        Checker("entity_spans", "entity_spans", "function", course_ref(REF + "entity_spans"),
                entity_spans_groups, recognize=recognize_spans),
        Checker("pad_batch", "pad_batch", "function", course_ref(REF + "pad_batch"),
                pad_batch_groups, recognize=recognize_pad),
    ],
    hidden={"align_labels": _align_hidden, "entity_spans": _spans_hidden,
            "pad_batch": _pad_hidden},
)
