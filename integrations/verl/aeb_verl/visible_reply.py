"""What the simulated user sees of a policy's completion.

The policy may reason inside ``<think>...</think>`` before replying (the think condition). Training
must show the simulated user exactly what the benchmark shows it, or the policy is trained on one
rule and measured on another; so this is the same split as the benchmark's LLM agent
(``splitThink`` in ``src/agents/think-format.ts``), character for character:

- no tags: the whole completion;
- ``<think>`` never closed: only the text before it (the rest was reasoning, nothing was said);
- otherwise: the text after the last ``</think>``, with any text before ``<think>`` put in front.

Whitespace is trimmed as JavaScript's ``String.prototype.trim`` trims it (not as Python's
``str.strip``, which also removes a few control characters and keeps U+FEFF).
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"

# ECMAScript WhiteSpace and LineTerminator code points: what String.prototype.trim removes.
_JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def trim(text: str) -> str:
    """``text.trim()`` as JavaScript trims."""
    return text.strip(_JS_WHITESPACE)


_trim = trim


def visible_reply(completion: str) -> str:
    """The reply the simulated user is shown (see the module's documentation)."""
    text = _trim(completion)
    opening = text.find(OPEN)
    closing = text.rfind(CLOSE)
    if opening == -1 and closing == -1:
        return text
    if closing == -1:
        return _trim(text[:opening])
    start = 0 if opening == -1 else opening + len(OPEN)
    think = _trim(text[start:closing]) if start <= closing else ""
    visible = _trim(text[closing + len(CLOSE) :])
    if OPEN in think or visible == "":
        return visible
    if opening > 0:
        return _trim(f"{_trim(text[:opening])} {visible}")
    return visible
