"""OpenAI's tokenizers, exactly (chapter 06; GPT-2's files, chapter 08).

GPT-2 (`r50k_base`), GPT-4 (`cl100k_base`) and GPT-4o (`o200k_base`) are the
core's `RegexTokenizer` with OpenAI's patterns and ranks. This part loads their
rank files offline (`encodings`), shows how GPT-2 stored tokens as text
(`byte_map`, `gpt2_files`), and builds `OpenAITokenizer` (`tokenizer`), equal
to tiktoken id for id, which with `encoding_api` stands in for a
`tiktoken.Encoding` (`unstable` is its `encode_with_unstable`, chapter 15).
`tiktoken_cache` lets plain tiktoken run offline too. Chapters 06, 08 and 09 use
it; `viz` and `explorer` show its encodings.
"""
