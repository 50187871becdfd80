"""The pipeline every `tokenizer.json` describes (chapter 13), with offsets.

A Hugging Face tokenizer is five steps, and this part of the course builds each one:
normalizer -> pre-tokenizer -> model -> post-processor, and a decoder back to text.
The model is what the earlier chapters built (BPE, WordPiece, Unigram); the rest is how a
real tokenizer gets text ready for it and tidies up after it. Each token also remembers
which characters of the ORIGINAL text it came from (its offsets), through every change the
steps made: that is what `normalized` teaches.

- `normalized`: a string with its alignment to the original text, the key to offsets
- `unicode_tables`: where `tokenizers`' Unicode (12.0) and Python's differ
- `normalizers`: NFC/NFD/NFKC/NFKD, Lowercase, Strip, StripAccents, Replace, Prepend,
  Precompiled and Nmt (SentencePiece), ByteLevel, BertNormalizer, Sequence
- `pretokenizers`: ByteLevel, Whitespace, WhitespaceSplit, Metaspace, Split,
  CharDelimiterSplit, FixedLength, Digits, Punctuation, BertPreTokenizer, Sequence
- `models`: BPE (with its options, BPE-dropout among them), WordPiece, Unigram, WordLevel,
  over the course's encoders
- `processors`: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence
- `decoders`: ByteLevel, WordPiece, Metaspace, BPEDecoder, ByteFallback, CTC, Fuse,
  Strip, Replace, Sequence
- `tokenizer`: the `Pipeline` itself: added tokens first, then the steps in order;
  `encode`, `encode_with_offsets` (an `Encoding`: ids, tokens, offsets) and `decode`
- `tokenizer_json`: `load_tokenizer_json`, reading a file into a `Pipeline` whose
  results equal `tokenizers`'; `minilm_tokenizer()`, a real BERT WordPiece file shipped
  with the package (all-MiniLM-L6-v2's), and the `tokenizer_config.json` beside it with
  which `transformers` loads the model's folder (chapter 14)

>>> import json, tempfile, pathlib
>>> spec = {"model": {"type": "WordPiece", "unk_token": "[UNK]",
...                   "vocab": {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3}},
...         "normalizer": {"type": "Lowercase"},
...         "pre_tokenizer": {"type": "Whitespace"}, "decoder": {"type": "WordPiece"}}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tokenizer.json"
>>> _ = path.write_text(json.dumps(spec))
>>> tok = load_tokenizer_json(path)
>>> enc = tok.encode_with_offsets("UNaffable")
>>> enc.ids, enc.tokens, enc.offsets
([1, 2, 3], ['un', '##aff', '##able'], [(0, 2), (2, 5), (5, 9)])
>>> tok.decode(enc.ids)
'unaffable'
"""

from .tokenizer import Encoding, Pipeline
from .tokenizer_json import load_tokenizer_json, minilm_tokenizer

__all__ = ["Encoding", "Pipeline", "load_tokenizer_json", "minilm_tokenizer"]
