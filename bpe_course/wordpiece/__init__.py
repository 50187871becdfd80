"""WordPiece (chapter 12, WordPiece and Unigram): BERT's tokenizer, equal to `tokenizers`.

WordPiece keeps a vocabulary and no merges: a word is cut greedily, longest known piece
first, and a piece inside a word is spelled with `##`. Before that, BERT cleans and folds
the text (`normalizer`) and splits it on spaces and punctuation (`pretokenizer`); every
step keeps, for each character, the span of the original text it came from, so each token
gets its offsets. `tokenizer` (`WordPiece`) puts the three together; `categories` holds the
Unicode 8.0 tables that `tokenizers` uses for punctuation, marks and control characters.
`trainer` (`train_wordpiece`) learns a vocabulary by merging, at each step, the pair with the
best score count(ab) / (count(a) count(b)) (pointwise mutual information, not the likelihood's
gain), as the Hugging Face course teaches.
"""
