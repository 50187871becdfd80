"""Worksheet 14, tokenizers in a model's pipeline: its solution passes, and the project's wrong
answers are caught.

`WRONG` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically). For each, the test
asserts that it is caught (by the check cell, or by the grader's hidden cases), that
the message names the kind of mistake (`says`: the words of `verdicts.KINDS`, of the
checker's own recogniser, or of a hint keyed by what came back), and that the points
the grader gives it (one seed, scored in this process as the grader scores) stay within
the cap of what it breaks (`breaks`, see `worksheets.common.BREAKS`). Checks run with
the course's own code off limits, as in a worksheet.
"""

import pytest

from bpe_course.classroom.checking.verdicts import KINDS
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "14_tokenizers_in_transformers"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_the_written_out_tokens_are_the_tokenizers(ns):
    # The worksheet's word ids, offsets and batch are all-MiniLM-L6-v2's, as chapter 14 loads it.
    transformers = pytest.importorskip("transformers")
    import tempfile
    from pathlib import Path

    from bpe_course.pipeline.tokenizer_json import (
        minilm_tokenizer_config_json,
        minilm_tokenizer_json,
    )
    folder = Path(tempfile.mkdtemp())
    (folder / "tokenizer.json").write_text(minilm_tokenizer_json(), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(minilm_tokenizer_config_json(),
                                                  encoding="utf-8")
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    for text, words, offsets in [("SOSEKI", "SOSEKI_WORDS", "SOSEKI_OFFSETS"),
                                 ("ZOE", "ZOE_WORDS", "ZOE_OFFSETS")]:
        enc = tok(ns[text], return_offsets_mapping=True)
        assert enc.word_ids() == ns[words]
        assert [tuple(o) for o in enc["offset_mapping"]] == ns[offsets]
    texts = ["Tokenizers are fast.", "Padding makes a batch rectangular.", "Hi!"]
    assert tok(texts)["input_ids"] == ns["BATCH"]


# -- the corpus of wrong answers -------------------------------------------------------------------

WRONG = []


def wrong(checker, says, breaks="wrong"):
    """Add a learner's wrong answer (a function of the solution's names that returns the
    answer) to the corpus: `says` is what its message must name, `breaks` its cap."""
    def add(factory):
        WRONG.append(pytest.param(checker, factory, says, breaks, id=factory.__name__))
        return factory
    return add


# align_labels

@wrong("align_labels", "only its first token")
def labels_on_every_token(ns):
    def align_labels(word_ids, word_labels):
        return [-100 if w is None else word_labels[w] for w in word_ids]
    return align_labels


@wrong("align_labels", "special tokens got 0")
def specials_labelled_o(ns):
    def align_labels(word_ids, word_labels):
        out, prev = [], None
        for w in word_ids:
            if w is None:
                out.append(0)
            elif w == prev:
                out.append(-100)
            else:
                out.append(word_labels[w])
            prev = w
        return out
    return align_labels


@wrong("align_labels", "index word_labels directly")
def labels_taken_in_order(ns):
    def align_labels(word_ids, word_labels):
        out, prev, labels = [], None, iter(word_labels)
        for w in word_ids:
            out.append(next(labels) if w is not None and w != prev else -100)
            prev = w
        return out
    return align_labels


@wrong("align_labels", "`not word` is also true for word 0")
def word_zero_taken_for_special(ns):
    def align_labels(word_ids, word_labels):
        out, prev = [], None
        for w in word_ids:
            out.append(word_labels[w] if w and w != prev else -100)
            prev = w
        return out
    return align_labels


@wrong("align_labels", "ignores -100")
def minus_one_for_ignored(ns):
    def align_labels(word_ids, word_labels):
        out, prev = [], None
        for w in word_ids:
            out.append(-1 if w is None or w == prev else word_labels[w])
            prev = w
        return out
    return align_labels


@wrong("align_labels", "the last token of each word")
def label_on_last_token(ns):
    def align_labels(word_ids, word_labels):
        out = []
        for k, w in enumerate(word_ids):
            nxt = word_ids[k + 1] if k + 1 < len(word_ids) else None
            out.append(word_labels[w] if w is not None and nxt != w else -100)
        return out
    return align_labels


@wrong("align_labels", "0 is a label the model must learn")
def o_label_skipped(ns):
    def align_labels(word_ids, word_labels):
        out, prev = [], None
        for w in word_ids:
            keep = w is not None and w != prev and word_labels[w]   # "O" needs no loss
            out.append(word_labels[w] if keep else -100)
            prev = w
        return out
    return align_labels


@wrong("align_labels", KINDS["mutated"], breaks="contract")
def labels_written_over_word_ids(ns):
    def align_labels(word_ids, word_labels):
        prev = None
        for k, w in enumerate(word_ids):
            word_ids[k] = -100 if w is None or w == prev else word_labels[w]
            prev = w
        return word_ids
    return align_labels


@wrong("align_labels", "the [SEP] between them")
def first_token_by_seen_set(ns):
    def align_labels(word_ids, word_labels):
        seen, out = set(), []
        for w in word_ids:
            out.append(-100 if w is None or w in seen else word_labels[w])
            seen.add(w)
        return out
    return align_labels


# entity_spans

@wrong("entity_spans", "its last token's end")
def span_of_the_first_token(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, span in zip(labels, word_ids, offsets):
            if w is not None and w not in words:
                words[w] = (label, *span)
        out, prev = [], "O"
        for label, s, e in words.values():
            if label.startswith("I-") and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "its last token's label")
def label_of_the_last_token(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is not None:
                words[w] = (label, words[w][1] if w in words else s, e)
        out, prev = [], "O"
        for label, s, e in words.values():
            if label.startswith("I-") and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "read token by token")
def token_by_token(ns):
    def entity_spans(labels, word_ids, offsets):
        out, prev = [], "O"
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is None:
                continue
            if label.startswith("I-") and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "across an O word")
def entity_goes_on_across_o(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is None:
                continue
            if w in words:
                words[w][2] = e
            else:
                words[w] = [label, s, e]
        out = []
        for label, s, e in words.values():
            if label.startswith("B-") or (label.startswith("I-") and
                                          (not out or out[-1][0] != label[2:])):
                out.append((label[2:], s, e))
            elif label.startswith("I-"):
                out[-1] = (out[-1][0], out[-1][1], e)
        return out
    return entity_spans


@wrong("entity_spans", "an entity of another type")
def any_i_continues(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is None:
                continue
            if w in words:
                words[w][2] = e
            else:
                words[w] = [label, s, e]
        out, prev = [], "O"
        for label, s, e in words.values():
            if label.startswith("I-") and prev != "O":
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "follows no entity of type X was dropped")
def stray_i_dropped(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is None:
                continue
            if w in words:
                words[w][2] = e
            else:
                words[w] = [label, s, e]
        out, prev = [], "O"
        for label, s, e in words.values():
            if label.startswith("B-"):
                out.append((label[2:], s, e))
            elif label.startswith("I-") and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "B- always starts a new one")
def b_continues_an_entity(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for label, w, (s, e) in zip(labels, word_ids, offsets):
            if w is None:
                continue
            if w in words:
                words[w][2] = e
            else:
                words[w] = [label, s, e]
        out, prev = [], "O"
        for label, s, e in words.values():
            if label != "O" and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", "special tokens were read as words")
def special_tokens_kept(ns):
    def entity_spans(labels, word_ids, offsets):
        words = {}
        for k, (label, w, (s, e)) in enumerate(zip(labels, word_ids, offsets)):
            key = ("special", k) if w is None else w
            if key in words:
                words[key][2] = e
            else:
                words[key] = [label, s, e]
        out, prev = [], "O"
        for label, s, e in words.values():
            if label.startswith("I-") and prev[2:] == label[2:]:
                out[-1] = (out[-1][0], out[-1][1], e)
            elif label != "O":
                out.append((label[2:], s, e))
            prev = label
        return out
    return entity_spans


@wrong("entity_spans", KINDS["type"])
def spans_as_text(ns):
    def entity_spans(labels, word_ids, offsets):
        return [f"{kind}:{start}-{end}" for kind, start, end
                in ns["entity_spans"](labels, word_ids, offsets)]
    return entity_spans


# pad_batch

@wrong("pad_batch", "padded with pad_id: pad them with -100")
def labels_padded_with_pad_id(ns):
    def pad_batch(features, pad_id, side="right"):
        if side not in ("right", "left"):
            raise ValueError(f"bad side {side!r}")
        n = max((len(f["input_ids"]) for f in features), default=0)

        def pad(row, v):
            return row + [v] * (n - len(row)) if side == "right" else [v] * (n - len(row)) + row
        out = {"input_ids": [pad(f["input_ids"], pad_id) for f in features],
               "attention_mask": [pad([1] * len(f["input_ids"]), 0) for f in features]}
        if features and "labels" in features[0]:
            out["labels"] = [pad(f["labels"], pad_id) for f in features]
        return out
    return pad_batch


@wrong("pad_batch", "attention mask is upside down")
def mask_of_pads(ns):
    def pad_batch(features, pad_id, side="right"):
        out = ns["pad_batch"](features, pad_id, side)
        out["attention_mask"] = [[int(not m) for m in row] for row in out["attention_mask"]]
        return out
    return pad_batch


@wrong("pad_batch", "whatever `side` said")
def always_right(ns):
    def pad_batch(features, pad_id, side="right"):
        if side not in ("right", "left"):
            raise ValueError("side must be 'right' or 'left'")
        n = max((len(f["input_ids"]) for f in features), default=0)
        out = {"input_ids": [f["input_ids"] + [pad_id] * (n - len(f["input_ids"]))
                             for f in features],
               "attention_mask": [[1] * len(f["input_ids"]) + [0] * (n - len(f["input_ids"]))
                                  for f in features]}
        if features and "labels" in features[0]:
            out["labels"] = [f["labels"] + [-100] * (n - len(f["labels"])) for f in features]
        return out
    return pad_batch


@wrong("pad_batch", "came back reversed")
def left_by_reversing(ns):
    def pad_batch(features, pad_id, side="right"):
        out = ns["pad_batch"](features, pad_id, "right")
        if side == "left":
            out = {key: [row[::-1] for row in rows] for key, rows in out.items()}
        elif side != "right":
            raise ValueError("side must be 'right' or 'left'")
        return out
    return pad_batch


@wrong("pad_batch", "comparing ids with pad_id")
def mask_from_the_ids(ns):
    def pad_batch(features, pad_id, side="right"):
        out = ns["pad_batch"](features, pad_id, side)
        out["attention_mask"] = [[0 if i == pad_id else 1 for i in row]
                                 for row in out["input_ids"]]
        return out
    return pad_batch


@wrong("pad_batch", KINDS["mutated"], breaks="contract")
def padded_in_place(ns):
    def pad_batch(features, pad_id, side="right"):
        if side not in ("right", "left"):
            raise ValueError("side must be 'right' or 'left'")
        n = max((len(f["input_ids"]) for f in features), default=0)
        masks = []
        for f in features:
            missing = n - len(f["input_ids"])
            masks.append([1] * len(f["input_ids"]) + [0] * missing if side == "right"
                         else [0] * missing + [1] * len(f["input_ids"]))
            for key, value in (("input_ids", pad_id), ("labels", -100)):
                if key in f:
                    if side == "right":
                        f[key] += [value] * missing
                    else:
                        f[key][:0] = [value] * missing
        out = {"input_ids": [f["input_ids"] for f in features], "attention_mask": masks}
        if features and "labels" in features[0]:
            out["labels"] = [f["labels"] for f in features]
        return out
    return pad_batch


@wrong("pad_batch", KINDS["no_error"], breaks="contract")
def any_side_is_left(ns):
    def pad_batch(features, pad_id, side="right"):
        return ns["pad_batch"](features, pad_id, "right" if side == "right" else "left")
    return pad_batch


@wrong("pad_batch", "there is no attention_mask")
def mask_forgotten(ns):
    def pad_batch(features, pad_id, side="right"):
        out = ns["pad_batch"](features, pad_id, side)
        del out["attention_mask"]
        return out
    return pad_batch


@pytest.mark.parametrize("name, factory, says, breaks", WRONG)
def test_a_wrong_answer_is_caught_named_and_keeps_what_the_rule_allows(
        ns, wrong_answer, name, factory, says, breaks):
    wrong_answer(name, factory(ns), says, breaks)


def test_the_corpus_has_at_least_20_wrong_answers_covering_every_exercise():
    assert len(WRONG) >= 20
    assert {p.values[0] for p in WRONG} == set(WORKSHEETS[WORKSHEET].points)
