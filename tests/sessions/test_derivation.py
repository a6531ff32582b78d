"""The derivation itself: uniform faces (χ²) and no modulo bias (rejection sampling)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from app.sessions.verify_fairplay import derive_face

SEED = hashlib.sha256(b"tafelrunde test seed").digest()
DRAWS = 100_000
#: χ² critical values at α = 10⁻⁶ for n − 1 degrees of freedom (5, 9, 19).
CRITICAL = {6: 37.9, 10: 50.7, 20: 72.8}


def _chi2(sides: int) -> float:
    counts = [0] * sides
    for k in range(DRAWS):
        counts[derive_face(SEED, 7, k // 10 + 1, 3, "seed", k % 10, sides) - 1] += 1
    expected = DRAWS / sides
    return sum((c - expected) ** 2 / expected for c in counts)


@pytest.mark.parametrize("sides", [6, 10, 20])
def test_faces_are_uniform(sides: int) -> None:
    assert _chi2(sides) < CRITICAL[sides]


@pytest.mark.parametrize("sides", [3, 7, 100])
def test_no_modulo_bias(sides: int) -> None:
    """Every 64-bit value at or above the largest multiple of ``sides`` is rejected, so each
    face has exactly ``limit / sides`` preimages; a rejected value moves on to ``j + 1``."""
    limit = 2**64 - 2**64 % sides
    assert limit % sides == 0 and 2**64 - limit < sides
    # Values just below the limit still land on every face; the first rejected one does not
    # count: the derivation must then take the next attempt.
    assert {u % sides for u in range(limit - sides, limit)} == set(range(sides))
    rejected = 0
    for k in range(20_000):
        msg = f"tafelrunde-fairplay-v1|1|1|1||{k}|0"
        u = int.from_bytes(hmac.new(SEED, msg.encode(), hashlib.sha256).digest()[:8], "big")
        face = derive_face(SEED, 1, 1, 1, "", k, sides)
        if u < limit:
            assert face == u % sides + 1
        else:
            rejected += 1
    assert rejected <= 1  # a rejection has probability < sides / 2⁶⁴
