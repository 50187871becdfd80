"""Tokenizers as files (chapter 08, after training; chapter 05 saves and loads).

One tokenizer, four ways to store it: the course's own plain-text model file
(written by `Tokenizer.save`, read into the right class by `course_files`),
tiktoken's rank file (`tiktoken_files`), Hugging Face's `vocab.json` + `merges.txt` and
`tokenizer.json` (`huggingface`, any ids), and the ids of a corpus on disk as
a `.npy` array that a training loop memory-maps (`id_files`).
"""
