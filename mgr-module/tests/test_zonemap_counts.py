"""'c' in a zone map: conventional without a stream, sealed at 20 % with one."""
from smrstore.stats import zonemap_counts


def test_c_is_told_apart_by_the_stream() -> None:
    # reserved, conventional, sealed 20 % (user), open 100 %, open 0 %, free
    zonemap = "#ccKA."
    streams = "--uuu-"
    assert zonemap_counts(zonemap, streams) == (1, 1, 2, 1, 0, 0, 1)


def test_c_without_streams_is_conventional() -> None:
    assert zonemap_counts("cc.") == (0, 1, 0, 0, 0, 0, 2)
