"""Making untrusted log text safe to show (STYLE.md, "Untrusted text").

Agents write these logs: treat their text as hostile. Nothing here interprets markup; these
functions only turn control characters, escapes and invisible characters into visible,
inert text. Rich/Textual callers must still pass the result as ``Text``, never as markup.
"""

from __future__ import annotations

import re

# C0 controls except \n and \t (tabs are expanded first), DEL, and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
# Bidi overrides/isolates and zero-width characters.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# ESC-introduced sequences: CSI (colors, cursor moves), OSC (titles, hyperlinks, clipboard), etc.
_ESCAPE_SEQ = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL/ST (OSC 8 links, OSC 52 clipboard)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC
    r"|\x1b[@-Z\\-_]"  # two-character escapes
)
_CSI_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ␁ ... control pictures
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}"


def sanitize_for_terminal(text: str, *, keep_colors: bool = False, tabsize: int = 4) -> str:
    """Text that cannot move the cursor, set titles, hyperlinks or the clipboard.

    Escape sequences are removed (``keep_colors`` keeps plain SGR colour codes, for
    ``Text.from_ansi`` on the visible slice); ``\\r`` becomes a visible ``␍``; other
    control characters become visible pictures; bidi overrides and zero-width characters
    are made visible as ``<U+XXXX>``.
    """
    if not text:
        return ""
    text = text.expandtabs(tabsize)
    if "\x1b" in text:
        if keep_colors:
            text = _ESCAPE_SEQ.sub(
                lambda m: m.group(0) if _CSI_SGR.fullmatch(m.group(0)) else "", text
            )
        else:
            text = _ESCAPE_SEQ.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\u240d")
    if keep_colors:
        text = re.sub(
            r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f\x80-\x9f]", lambda m: _visible(m.group(0)), text
        )
        text = re.sub(r"\x1b(?!\[[0-9;]*m)", "\u241b", text)
    else:
        text = _CONTROL.sub(lambda m: _visible(m.group(0)), text)
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text)


def sanitize_label(text: str, max_len: int = 200) -> str:
    """A one-line, bounded, inert label (run ids, tool names, table cells)."""
    s = sanitize_for_terminal(text.replace("\n", " ")[: max_len * 2])
    return s if len(s) <= max_len else s[: max_len - 1] + "…"


def csv_safe(value: object) -> object:
    """Escape a CSV cell that a spreadsheet would run as a formula (= + - @ tab CR)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
