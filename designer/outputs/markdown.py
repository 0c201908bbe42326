"""Text from outside designer (an intent's description, a site catalog's labels and sources) as Markdown that shows
it as written: nothing in it can start Markdown or HTML, break a line or open a link."""

from __future__ import annotations

import re
import string

from designer.errors import printable

MARKDOWN_INLINE = frozenset("\\`*_[]<&~")
"""Characters that open or close Markdown anywhere in a line: escapes, code, emphasis, links and images, HTML and
autolinks in angle brackets, entities, strikethrough. (A table needs a line of '-', ':' and '|' under its header;
escaping a line's first character already stops that.)"""


def markdown_text(text: str) -> str:
    """``text`` as Markdown that shows it as written: each line on its own line (leading and trailing spaces
    dropped; a backslash at the end of a line breaks it), blank lines between paragraphs, and every character that
    could start Markdown or HTML escaped with a backslash (CommonMark: an escaped ASCII punctuation character is
    always literal): :data:`MARKDOWN_INLINE` anywhere, punctuation at the start of a line (headings, lists,
    quotes, fences, tables, HTML blocks) and the '.' or ')' after a line's leading digits (numbered lists)."""
    paragraphs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            paragraphs[-1].append(_literal(line.strip()))
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join("\\\n".join(lines) for lines in paragraphs if lines)


def _literal(line: str) -> str:
    digits = len(line) - len(line.lstrip(string.digits))
    return "".join(
        "\\" + character
        if character in MARKDOWN_INLINE
        or (index == 0 and character in string.punctuation)
        or (index == digits > 0 and character in ".)")
        else character
        for index, character in enumerate(line)
    )


def markdown_inline(text: str) -> str:
    """``text`` as Markdown inside a sentence: one line (control characters, a new line among them, written as their
    escapes), every character that could start Markdown or HTML escaped (:func:`markdown_text`)."""
    return _literal(" ".join(printable(text).split()))


def markdown_code(text: str) -> str:
    """``text`` as an inline code span when it is a plain name (letters, digits, ``_.@{}<>/-``), else as
    :func:`markdown_inline` text (a backtick or a new line would break out of the span)."""
    return f"`{text}`" if re.fullmatch(r"[\w.@{}<>/-]+", text) else markdown_inline(text)
