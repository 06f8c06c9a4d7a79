"""Zone-map counts: every character counts once; '=' is an unused conventional zone."""
from smrstore.stats import zonemap_counts


def test_every_character_counts_once() -> None:
    # reserved, conventional, sealed 20 %, sealed 100 %, open 100 %, open 0 %, free
    assert zonemap_counts("#=ckKA.") == (1, 1, 2, 2, 0, 0, 1)


def test_c_is_a_sealed_zone() -> None:
    assert zonemap_counts("cc.") == (0, 1, 0, 2, 0, 0, 0)
