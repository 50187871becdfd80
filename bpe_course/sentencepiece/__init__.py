"""SentencePiece (chapter 11 and the subword family after it): BPE and Unigram on code points.

`model_proto` reads and writes SentencePiece's `.model` (its `ModelProto` protobuf, without the
protobuf library); `normalizer` applies a model's normalization exactly (its
compiled rule table, the space rules, `▁`); `tokenizer` holds what both models
share and `SentencePieceBPE`, equal to the `sentencepiece` library id for id;
`unigram` (`SentencePieceUnigram`) finds the most probable segmentation, the n
best and samples; `load` (`load_sentencepiece`) picks the right one for a file;
`trainer` learns a code-point BPE to compare with `spm_train`; and `unigram_trainer`
(`train_unigram`) learns a Unigram model by EM (forward-backward expected counts, a digamma
M-step) and pruning by likelihood loss, as `spm_train --model_type=unigram` does.
"""
