"""python3-rados workload for qa/traces/capture.sh: write_full, append, write at an offset,
xattrs, omap through WriteOpCtx, remove. Verifies what it reads back.

    rados_py.py CONF POOL
"""
import sys

import rados  # Debian python3-rados


def main() -> int:
    conf, pool = sys.argv[1], sys.argv[2]
    cl = rados.Rados(conffile=conf)
    cl.connect(timeout=60)
    try:
        io = cl.open_ioctx(pool)
        a = bytes(range(256)) * 64                      # 16 KiB
        io.write_full("py.a", a)
        io.append("py.a", b"x" * 5000)
        io.write("py.a", b"y" * 3000, 20000)            # past the end: size 23000
        got = io.read("py.a", 30000)
        assert len(got) == 23000 and got[:16384] == a and got[20000:] == b"y" * 3000, "py.a"
        io.set_xattr("py.a", "owner", b"trace-capture")
        io.set_xattr("py.a", "tmp", b"1")
        io.rm_xattr("py.a", "tmp")
        assert io.get_xattr("py.a", "owner") == b"trace-capture"
        with rados.WriteOpCtx() as op:
            io.set_omap(op, ("k1", "k2", "k3"), (b"v1", b"v22", b"v333"))
            io.operate_write_op(op, "py.a")
        with rados.WriteOpCtx() as op:
            io.remove_omap_keys(op, ("k2",))
            io.operate_write_op(op, "py.a")
        with rados.ReadOpCtx() as op:
            it, _ = io.get_omap_vals(op, "", "", 100)
            io.operate_read_op(op, "py.a")
            assert dict(it) == {"k1": b"v1", "k3": b"v333"}, "omap"
        io.write_full("py.b", b"z" * 100000)
        io.write_full("py.b", b"w" * 10)                # write_full shrinks: size 10
        assert io.stat("py.b")[0] == 10
        io.write_full("py.c", b"gone")
        io.remove_object("py.c")
        io.close()
    finally:
        cl.shutdown()
    print("rados_py: ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
