"""src/core/random.ts in Python, for the scripts that compute reference vectors with SciPy.

The bootstraps of the TypeScript code draw from mulberry32 seeded by deriveSeed (FNV-1a); the
scripts replay those exact draws so that their intervals can be compared to the last digit.
"""

from __future__ import annotations

import math

MASK = 0xFFFFFFFF


class Mulberry32:
    """src/core/random.ts's createRng."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x6D2B79F5) & MASK
        t = self.state
        t = ((t ^ (t >> 15)) * (t | 1)) & MASK
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    def int(self, low, high):
        return low + math.floor(self.next() * (high - low + 1))


def derive_seed(*parts):
    """src/core/random.ts's deriveSeed: FNV-1a over the parts joined by NUL."""
    value = 0x811C9DC5
    for char in "\0".join(str(part) for part in parts):
        value ^= ord(char)
        value = (value * 0x01000193) & MASK
    return value
