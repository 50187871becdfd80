"""Chat templates and the end of a prompt (chapter 15).

A chat becomes one sequence of ids, and where that sequence stops matters. `template` has
Mistral's chat template for Mistral 7B Instruct's tokenizer (shipped, hash-checked), writes a
folder that `transformers` loads with it, and encodes a conversation as Mistral's own
library does, message by message; `healing` backs a prompt up over its last token and lists
the tokens that may replace it (token healing).
"""

from .healing import Healed, extensions, heal
from .template import mistral_v1_ids, mistral_v1_template, write_mistral_v1_tokenizer

__all__ = ["Healed", "extensions", "heal", "mistral_v1_ids", "mistral_v1_template",
           "write_mistral_v1_tokenizer"]
