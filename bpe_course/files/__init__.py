"""Tokenizers as files (chapter 05, and after training).

One tokenizer, four ways to store it: the course's own plain-text model file
(`model_files.load`, written by `Tokenizer.save`), tiktoken's rank file
(`model_files.save_tiktoken`), Hugging Face's `vocab.json` + `merges.txt` and
`tokenizer.json` (`huggingface`, any ids), and the ids of a corpus on disk as
a `.npy` array that a training loop memory-maps (`id_files`).
"""
