"""Zone-map counts: every character counts once; '=' is an unused conventional zone, '_' a
zone of a hybrid drive's inactive domain."""
import random

from smrstore.stats import ZONEMAP_OPEN, ZONEMAP_SEALED, zonemap_counts


def test_every_character_counts_once() -> None:
    # reserved, conventional, sealed 20 %, sealed 100 %, open 100 %, open 0 %, free, inactive
    assert zonemap_counts("#=ckKA._") == (1, 1, 2, 2, 0, 0, 1, 1)


def test_c_is_a_sealed_zone() -> None:
    assert zonemap_counts("cc.") == (0, 1, 0, 2, 0, 0, 0, 0)


def test_each_state_counted_from_its_own_character() -> None:
    # A different count for every state, so counting any state from another state's
    # character (offline from '!' instead of 'X', say) changes the result.
    want = {"#": 1, ".": 2, "open": 3, "sealed": 4, "X": 5, "!": 6, "=": 7, "_": 8}
    zm = list("#" + "." * 2 + "AFK" + "aejk" + "X" * 5 + "!" * 6 + "=" * 7 + "_" * 8)
    random.Random(21).shuffle(zm)
    assert zonemap_counts("".join(zm)) == (want["#"], want["."], want["open"], want["sealed"],
                                           want["X"], want["!"], want["="], want["_"])


def test_every_open_and_sealed_fill_level_counts() -> None:
    assert zonemap_counts(ZONEMAP_OPEN) == (0, 0, 11, 0, 0, 0, 0, 0)
    assert zonemap_counts(ZONEMAP_SEALED) == (0, 0, 0, 11, 0, 0, 0, 0)
    assert zonemap_counts("") == (0, 0, 0, 0, 0, 0, 0, 0)
