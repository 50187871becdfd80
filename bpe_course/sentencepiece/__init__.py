"""SentencePiece's BPE (chapter 11): merges on code points, the tokenizer of Llama 2.

`model_file` reads and writes SentencePiece's `.model` (protobuf, without the
protobuf library), `tokenizer` (`SentencePieceBPE`) encodes and decodes equal to
the `sentencepiece` library id for id, and `trainer` learns a code-point BPE
to compare with `spm_train`.
"""
