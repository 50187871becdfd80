"""A live token explorer: type a text and watch several tokenizers cut it, side by side.

This is what people open the tiktokenizer web page for, inside the notebook and
with your own tokenizer beside GPT-2's, GPT-4's and GPT-4o's:

    token_explorer(tok)          # tok: a tokenizer you trained

Each column is `show_tokens`' coloured view (the same colours; hover a token for its
id) under the tokenizer's name, and a line above the columns compares the counts.

In JupyterLab, Jupyter Notebook and Colab the explorer is an ipywidgets text box
whose columns follow every keystroke. Where no widget front end runs (GitHub,
nbviewer, a notebook not yet run) the same output shows the static view of the
starting text, and a terminal gets plain text. The model logic (`Explorer.html`,
`Explorer.counts`) needs no browser, which is how the tests check it.

>>> from bpe_course import GPT4Tokenizer
>>> ex = Explorer({"GPT-4 (ours)": GPT4Tokenizer()}, text="Hello world!")
>>> ex.counts()
{'GPT-4 (ours)': 3}
>>> print(ex)
GPT-4 (ours): 3 tokens
  Hello| world|!
"""

from __future__ import annotations

import html

from .openai.encodings import get_encoding
from .viz import TokenView, show_tokens

# The tokenizers every explorer shows beside the learner's: label -> tiktoken encoding.
STANDARD = {"GPT-2 (r50k_base)": "r50k_base", "GPT-4 (cl100k_base)": "cl100k_base",
            "GPT-4o (o200k_base)": "o200k_base"}
DEFAULT_TEXT = "Hello world! 12345 + 678 = 13023. Привет, мир! 안녕하세요 🦊"
# Longer texts are cut here: a learner's pure-Python tokenizer must keep up with typing.
MAX_CHARS = 5_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def standard_tokenizers() -> tuple[dict, list[str]]:
    """GPT-2's, GPT-4's and GPT-4o's encodings by label, and a note for each one missing."""
    found, notes = {}, []
    for label, name in STANDARD.items():
        try:
            found[label] = get_encoding(name)
        except (ValueError, OSError) as e:          # e.g. no offline copy of this encoding
            notes.append(f"{label} is left out: {e}")
    return found, notes


def label_of(tokenizer) -> str:
    """`yours (BasicTokenizer, vocab 512)`: how a learner's tokenizer is labelled."""
    size = getattr(tokenizer, "vocab", None)
    size = f", vocab {len(size):,}" if isinstance(size, dict) else ""
    return f"yours ({type(tokenizer).__name__}{size})"


class Explorer:
    """Several tokenizers on one text: counts, coloured views, and a live widget."""

    def __init__(self, tokenizers: dict, text: str = DEFAULT_TEXT, notes=()):
        if not tokenizers:
            raise ValueError("the explorer needs at least one tokenizer")
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        self.tokenizers = dict(tokenizers)
        self.text = text
        self.notes = list(notes)
        self.widget = None

    def views(self, text: str | None = None) -> dict[str, TokenView | str]:
        """Each tokenizer's view of `text` (default: the current text), or its error message.

        An error in one tokenizer (say, an unfinished exercise) shows in its own column
        and never stops the others.
        """
        text = (self.text if text is None else text)[:MAX_CHARS]
        views = {}
        for label, tok in self.tokenizers.items():
            try:
                views[label] = show_tokens(tok, text)
            except Exception as e:                  # the learner's code may raise anything
                views[label] = f"{type(e).__name__}: {e}"
        return views

    def counts(self, text: str | None = None) -> dict[str, int | None]:
        """How many tokens each tokenizer makes of `text` (None where it failed)."""
        return {label: len(v.ids) if isinstance(v, TokenView) else None
                for label, v in self.views(text).items()}

    def html(self, text: str | None = None) -> str:
        """The static view: a line of counts, then one labelled column per tokenizer."""
        text = self.text if text is None else text
        views = self.views(text)
        counts = " · ".join(
            f"{html.escape(label.split(' (')[0])} <b>{len(v.ids) if isinstance(v, TokenView) else '–'}</b>"
            for label, v in views.items())
        cut = (f" (first {MAX_CHARS:,} of {len(text):,} characters)"
               if len(text) > MAX_CHARS else "")
        columns = []
        for label, view in views.items():
            # show_tokens' view, with a line break allowed between tokens (never inside one)
            body = (view._repr_html_().replace("</span><span", "</span><wbr><span")
                    if isinstance(view, TokenView) else
                    f'<div class="bpe-error" style="color:#b00020">{html.escape(view)}</div>')
            columns.append(
                f'<div class="bpe-column" data-label="{html.escape(label)}" '
                f'style="flex:1 1 16em;min-width:12em;max-width:100%;overflow-wrap:anywhere">'
                f'<div style="font-weight:bold;margin-bottom:2px">{html.escape(label)}</div>'
                f'{body}</div>')
        notes = "".join(f'<div style="color:#666;font-size:85%">{html.escape(n)}</div>'
                        for n in self.notes)
        return (f'<div class="bpe-explorer">'
                f'<div class="bpe-counts" style="margin-bottom:6px">tokens{cut}: {counts}</div>'
                f'<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">'
                f'{"".join(columns)}</div>{notes}</div>')

    def __str__(self) -> str:
        lines = []
        for label, view in self.views().items():
            if isinstance(view, TokenView):
                pieces = str(view).rsplit("   (", 1)[0]
                lines += [f"{label}: {len(view.ids)} tokens", f"  {pieces}"]
            else:
                lines += [f"{label}: {view}"]
        return "\n".join(lines + self.notes)

    def __repr__(self) -> str:
        return str(self)

    def build_widget(self):
        """The live widget: a text box above the columns, which follow every keystroke."""
        import ipywidgets as widgets
        box = widgets.Textarea(value=self.text, continuous_update=True,
                               placeholder="Type or paste a text",
                               layout=widgets.Layout(width="100%", height="5em"))
        out = widgets.HTML(value=self.html())

        def update(change):
            self.text = change["new"]
            out.value = self.html()

        box.observe(update, names="value")
        self.widget = widgets.VBox([box, out])
        self.widget.add_class("bpe-token-explorer")
        return self.widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": str(self), "text/html": self.html()}
        try:
            widget = self.build_widget()
        except ImportError:                          # no ipywidgets: the static view only
            return bundle
        # The form both ipywidgets 7 (Colab) and 8 display; front ends without a widget
        # manager fall back to the HTML.
        bundle[WIDGET_VIEW] = {"version_major": 2, "version_minor": 0,
                               "model_id": widget.model_id}
        return bundle


def token_explorer(*yours, text: str = DEFAULT_TEXT, standard: bool = True,
                   named: dict | None = None) -> Explorer:
    """An explorer of `text` with your tokenizers (if any) beside GPT-2, GPT-4 and GPT-4o.

    `yours` are course tokenizers, `tiktoken.Encoding`s or `SentencePieceBPE`s, each
    labelled "yours"; `named` adds tokenizers under labels of your choice (`{"Mistral 7B
    (SentencePiece)": mistral}`); `standard=False` leaves out OpenAI's encodings. In a
    notebook, end a cell with it to get the live widget.

    >>> token_explorer(named={"GPT-2 again": get_encoding("gpt2")}, text="Hi!").counts()
    {'GPT-2 again': 2, 'GPT-2 (r50k_base)': 2, 'GPT-4 (cl100k_base)': 2, 'GPT-4o (o200k_base)': 2}
    """
    tokenizers, notes = standard_tokenizers() if standard else ({}, [])
    mine = {}
    for k, tok in enumerate(yours, 1):
        label = label_of(tok)
        mine[label if label not in mine else f"{label} #{k}"] = tok
    return Explorer({**mine, **(named or {}), **tokenizers}, text=text, notes=notes)
