"""Real documents to plain text: what a reader sees of an HTML page or a manual page."""

from bpe_course.lab.extract import html_to_text, roff_to_text

# -- HTML -------------------------------------------------------------------------------------

def test_html_keeps_the_visible_text_one_block_a_line():
    page = ("<html><head><title>T</title><style>p {}</style></head><body>"
            "<h1>Title</h1><p>First  paragraph,\n   with <em>emphasis</em>.</p>"
            "<ul><li>one</li><li>two</li></ul></body></html>")
    assert html_to_text(page) == "Title\n\nFirst paragraph, with emphasis.\n\none\n\ntwo"


def test_html_drops_scripts_navigation_and_hidden_elements():
    page = ("<nav><a>Home</a></nav><script>var x = '<p>no</p>';</script>"
            "<div id='DEBUG'><p>debug info</p><div>nested</div></div>"
            "<span hidden='true'>WRITER only</span><p>kept</p>"
            "<div class='navfooter'>Next</div><footer>(c)</footer>")
    assert html_to_text(page) == "kept"


def test_html_skipping_ends_with_the_element_that_began_it():
    page = "<div class='docnav'><div>a</div><div>b</div></div><div>after</div>"
    assert html_to_text(page) == "after"


def test_html_keeps_whitespace_inside_pre_and_decodes_entities():
    page = "<p>a &amp; b &lt;c&gt; caf&eacute; &#x1F600;</p><pre>def f():\n    return 1</pre>"
    assert html_to_text(page) == "a & b <c> café 😀\n\ndef f():\n    return 1"


def test_html_of_nothing_visible_is_empty():
    assert html_to_text("") == ""
    assert html_to_text("<script>x</script>") == ""


# -- roff -------------------------------------------------------------------------------------

def test_roff_title_sections_and_font_macros():
    page = ('.TH GREP 1 2024 "GNU" "User Commands"\n.SH NAME\ngrep \\- print lines\n'
            '.SH SYNOPSIS\n.B grep\n.RI [ OPTION ...]\n.IR PATTERNS\n')
    assert roff_to_text(page) == ("GREP(1)\n\nNAME\ngrep - print lines\n\n"
                                  "SYNOPSIS\ngrep [OPTION...] PATTERNS")


def test_roff_escapes_become_characters_or_nothing():
    line = ("\\fBbold\\fR \\fIit\\fP \\f[CR]mono\\f[] \\(em \\[em] \\(bu \\[u00E9] "
            "\\*(Tm \\e \\- \\&. a\\ b \\s-1small\\s0")
    assert roff_to_text(line) == "bold it mono — — • é ™ \\ - . a b small"


def test_roff_comments_and_unknown_requests_are_dropped():
    page = '.\\" a comment\n.de XX\n.ds S string\nText\\" trailing comment\n.ne 5\n'
    assert roff_to_text(page) == "Text"


def test_roff_fills_lines_into_paragraphs():
    page = "One\ntwo\n.B three\nfour.\n.PP\nNext paragraph.\n"
    assert roff_to_text(page) == "One two three four.\n\nNext paragraph."


def test_roff_tagged_paragraphs_put_the_tag_on_its_own_line():
    page = ".TP\n.B \\-a\nshow all\nentries\n.TP\n\\-l\nlong\n"
    assert roff_to_text(page) == "-a\nshow all entries\n-l\nlong"


def test_roff_no_fill_blocks_keep_their_lines():
    page = "Example:\n.nf\n  x = 1\n  y = 2\n.fi\nafter\n"
    assert roff_to_text(page) == "Example:\n  x = 1\n  y = 2\nafter"


def test_roff_tables_keep_their_data_not_their_format():
    page = ".TS\nallbox;\nl l.\nName\tValue\nfoo\t1\n.TE\n"
    assert roff_to_text(page) == "Name\tValue\nfoo\t1"


def test_roff_mdoc_macros_keep_their_arguments():
    page = ".Dd 2020\n.Dt LS 1\n.Sh NAME\n.Nm ls\n.Nd list files\n"
    assert roff_to_text(page) == "LS(1)\n\nNAME\nls list files"


def test_roff_bad_code_point_escape_is_dropped():
    assert roff_to_text("a\\[uD800]b\\[u110000]c") == "abc"
