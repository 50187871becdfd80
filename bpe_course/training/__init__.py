"""Training fast (chapter 07): the naive trainer's merges, a hundred times sooner.

`trainer` (`train_bpe`) counts distinct pre-tokens instead of keeping the text,
counts pairs once and updates them incrementally, and picks the best pair
with a heap. `counting` counts a corpus in parallel worker processes, in
chunks cut where `corpus_cuts` proves that no pre-token or special token can
span the cut. Chapter 07 teaches it; chapters 08, 09 and 12 train with it.
"""
