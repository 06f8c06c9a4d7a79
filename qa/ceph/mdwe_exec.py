#!/usr/bin/python3
"""mdwe_exec.py PROGRAM [ARGS...]: runs PROGRAM under the seccomp filter systemd installs for
MemoryDenyWriteExecute=yes (Debian's ceph-osd@.service sets it), so the preload can be
checked against it on a machine without systemd: mmap with PROT_WRITE|PROT_EXEC, and
mprotect/pkey_mprotect adding PROT_EXEC, fail with EPERM; shmat with SHM_EXEC too.
(systemd's seccomp_memory_deny_write_execute(), as documented in systemd.exec(5).)
Needs Debian's python3-seccomp (libseccomp's bindings)."""
import errno
import os
import sys

import seccomp

PROT_WRITE, PROT_EXEC, SHM_EXEC = 0x2, 0x4, 0o100000


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: mdwe_exec.py PROGRAM [ARGS...]")
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    f.add_rule(deny, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC))
    f.add_rule(deny, "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
    f.add_rule(deny, "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
    f.add_rule(deny, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
    f.load()
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
