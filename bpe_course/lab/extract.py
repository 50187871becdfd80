"""Real documents to plain text: what a tokenizer should be trained on, and what it should not.

A documentation package holds HTML pages and manual pages. A tokenizer trained
on their raw files would spend its vocabulary on `</span>` and `\\fB`, markup
that no reader sees. So each file is turned into the text a reader sees:

- `html_to_text`: the visible text of a page, with a line break for each block
  (paragraph, heading, list item, table row), whitespace as a browser shows it
  (runs collapsed, kept inside `<pre>`), and no scripts, styles, navigation or
  hidden elements.
- `roff_to_text`: a manual page's text without its roff requests (`.SH NAME`
  keeps `NAME`, `.B word` keeps `word`) and escapes (`\\fB`, `\\-`, `\\(em`).

>>> html_to_text("<p>Hello,<br>  <b>world</b>!</p><script>x()</script><p>Bye</p>")
'Hello,\\nworld!\\n\\nBye'
>>> roff_to_text('.TH LS 1\\n.SH NAME\\nls \\\\- list directory contents\\n'
...              '.SH SYNOPSIS\\n.B ls\\n[\\\\fIOPTION\\\\fR]...')
'LS(1)\\n\\nNAME\\nls - list directory contents\\n\\nSYNOPSIS\\nls [OPTION]...'

Subtle: neither is a full renderer. HTML is parsed by the standard library's
forgiving `html.parser`, and roff macros that compute layout (conditionals,
string definitions, tables' format lines) are dropped rather than run, which
loses a little text and never invents any.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# -- HTML -------------------------------------------------------------------------------------

# Elements whose content no reader of the page's text wants.
SKIP_TAGS = {"script", "style", "head", "nav", "header", "footer", "aside", "noscript",
             "form", "button", "select", "template", "svg", "math"}
# ids and classes of navigation and debugging boxes in the packages the lab reads
# (LibreOffice's help, DocBook's navigation bars).
SKIP_MARKS = {"DEBUG", "debug", "SearchFrame", "DonationFrame", "Contents", "Index",
              "Bookmarks", "docnav", "navheader", "navfooter", "toc", "sidebar-toc"}
# Elements that start a new line of text.
BLOCK_TAGS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
              "dt", "dd", "dl", "section", "article", "blockquote", "ul", "ol", "title",
              "caption", "figure", "figcaption", "hr", "main", "body", "td", "th"}
VOID_TAGS = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed",
             "source", "track", "wbr", "param"}


class _VisibleText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: str | None = None     # the tag of the element being skipped
        self.depth = 0                       # its nesting depth, to find its end
        self.pre = 0

    def handle_starttag(self, tag, attrs):
        if self.skipping:
            if tag == self.skipping and tag not in VOID_TAGS:
                self.depth += 1
            return
        a = dict(attrs)
        marks = {a.get("id") or ""} | set((a.get("class") or "").split())
        if tag not in VOID_TAGS and (tag in SKIP_TAGS or "hidden" in a or marks & SKIP_MARKS):
            self.skipping, self.depth = tag, 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in BLOCK_TAGS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append("\t")

    def handle_endtag(self, tag):
        if self.skipping:
            if tag == self.skipping:
                self.depth -= 1
                if self.depth == 0:
                    self.skipping = None
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.skipping:
            return
        if not self.pre:                     # as a browser shows it: runs of spaces as one,
            data = re.sub(r"\s+", " ", data)  # none at the start of a line
            if not self.parts or self.parts[-1].endswith("\n"):
                data = data.lstrip(" ")
        self.parts.append(data)


def html_to_text(html: str) -> str:
    """The visible text of an HTML page: one line per block, blank lines between paragraphs."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return tidy("".join(parser.parts))


def tidy(text: str) -> str:
    """Trailing spaces off every line, at most one blank line in a row, no blank lines at
    either end."""
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n ")


# -- roff (manual pages) ----------------------------------------------------------------------

# Named characters: \(xx and \[xx]. The common ones; any other becomes nothing.
GLYPHS = {"bu": "•", "em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": '"',
          "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "co": "©", "rg": "®", "tm": "™",
          "ga": "`", "ti": "~", "ha": "^", "sl": "/", "rs": "\\", "ba": "|", "lh": "☜",
          "rh": "☞", "de": "°", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥",
          "!=": "≠", "->": "→", "<-": "←", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›",
          "sc": "§", "ps": "¶", "dg": "†", "Eu": "€", "eu": "€", "at": "@", "sh": "#",
          "Do": "$", "ct": "¢", "Po": "£", "Ye": "¥", "pc": "·", "fm": "′", "sd": "″",
          "Ah": "ℵ", "if": "∞", "ss": "ß", "ae": "æ", "AE": "Æ", "o/": "ø", "O/": "Ø"}
# Predefined strings: \*(xx, \*[xx], \*x.
STRINGS = {"R": "®", "Tm": "™", "lq": "“", "rq": "”", "aq": "'"}

ESCAPE = re.compile(r"""\\(?:
      f(?:\[[^\]]*\]|\(..|.)            # font change: gone
    | s[-+]?(?:\[[^\]]*\]|\(..|\d{1,2}) # size change: gone
    | [nmg](?:\[[^\]]*\]|\(..|.)        # register, colour: gone
    | \*(?P<s>\[[^\]]*\]|\(..|.)        # predefined string
    | \((?P<g>..)                       # named character \(xx
    | \[(?P<b>[^\]]*)\]                 # named character \[xx] or \[u00E9]
    | [hvwoklLNDbxXZRS]'[^']*'          # motions, widths, drawing: gone
    | (?P<c>.)                          # a one-character escape
    )""", re.VERBOSE)

SIMPLE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "t": "\t",
          "'": "'", "`": "`", ".": "."}


def _escape(m: re.Match) -> str:
    if m.group("s"):
        name = m.group("s").strip("[]")
        return STRINGS.get(name[1:] if name.startswith("(") else name, "")
    if m.group("g"):
        return GLYPHS.get(m.group("g"), "")
    if m.group("b") is not None:
        name = m.group("b")
        if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
            code = int(name[1:], 16)
            return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else ""
        return GLYPHS.get(name, "")
    if m.group("c") is not None:
        return SIMPLE.get(m.group("c"), "")      # \& \| \^ \% \c \/ \, \: ... are nothing
    return ""


def roff_inline(text: str) -> str:
    """A line of roff text with its escapes resolved (`\\"` starts a comment)."""
    text = text.split('\\"', 1)[0]
    return ESCAPE.sub(_escape, text)


def roff_arguments(line: str) -> list[str]:
    """The arguments of a request line, with "double quotes" grouping words."""
    return [a[1:-1].replace('""', '"') if a.startswith('"') else a
            for a in re.findall(r'"(?:[^"]|"")*"?|\S+', line)]


# Requests that start a paragraph or a line; their arguments are not text.
BREAKS = {"PP", "LP", "P", "sp", "br", "TP", "HP", "RS", "RE", "nf", "fi", "Pp", "Lp", "Bl",
          "El", "Bd", "Ed", "TQ", "EX", "EE", "YS", "ne", "in", "ti"}
# Font macros: their arguments are text; the alternating ones join without spaces.
JOINED = {"BR", "RB", "BI", "IB", "IR", "RI", "SB"}
SPACED = {"B", "I", "SM", "UR", "MT", "OP", "SY"}


def roff_to_text(source: str) -> str:
    """The text of a manual page in roff (man or mdoc macros): requests and escapes gone,
    lines filled into paragraphs as `man` shows them (except in `.nf`/`.EX` blocks)."""
    out: list[str] = []
    words: list[str] = []                    # the line being filled
    fill, table_format, tag_line = True, False, False

    def flush():
        if words:
            out.append(" ".join(words))
            words.clear()

    def text(line: str):
        nonlocal tag_line
        if not fill:
            out.append(line)
            return
        if line.strip():
            words.append(line.strip())
        else:                                # a blank input line is a paragraph break
            flush()
            out.append("")
        if tag_line:                         # the tag of .TP stands on its own line
            flush()
            tag_line = False

    for raw in source.splitlines():
        if table_format:                     # tbl: format lines end with "."
            table_format = not raw.rstrip().endswith(".")
            continue
        if not raw.startswith((".", "'")):
            text(roff_inline(raw))
            continue
        request, _, rest = raw[1:].lstrip().partition(" ")
        if request.startswith('\\"') or not request:
            continue                         # a comment, or an empty request
        args = [roff_inline(a) for a in roff_arguments(rest)]
        if request == "Dd":
            continue                         # mdoc's date
        if request in ("TH", "Dt"):
            flush()
            out.extend([f"{args[0]}({args[1]})" if len(args) > 1 else " ".join(args), ""])
        elif request in ("SH", "SS", "Sh", "Ss"):
            flush()
            out.extend(["", " ".join(args)])
        elif request == "TS":                # a table: format lines, then rows as they are
            flush()
            table_format, fill = True, False
        elif request == "TE":
            fill = True
        elif request in ("nf", "EX", "Bd"):
            flush()
            fill = False
        elif request in ("fi", "EE", "Ed"):
            fill = True
        elif request == "IP":
            flush()
            if args:
                words.append(args[0])
        elif request in BREAKS:
            flush()
            if request in ("PP", "LP", "P", "sp", "Pp", "Lp"):
                out.append("")
            tag_line = request in ("TP", "TQ")
        elif request in JOINED:
            text("".join(args))
        elif request in SPACED or (request[:1].isupper() and request[1:2].islower()):
            text(" ".join(args))             # man's font macros, and mdoc's (Nm, Nd, Fl, ...)
        # any other request (definitions, conditionals, layout) is dropped
    flush()
    return tidy("\n".join(out))
