"""Task `smrstore_script`: one of the self-contained cluster checks of qa/ceph/ (or another
repo script) as a job, for the checks that need a cluster shape of their own (bad input to an
OSD, the upgrade gate, ceph-volume refusals, telemetry, the mgr module, the long fault suite).

    tasks:
    - smrstore_script:
        script: qa/ceph/0008_osd_bad_input.sh   # relative to the repository
        tool: true      # pass the smrstore-tool path as the first argument (default true)
        args: []        # more arguments
        env: {}         # more environment

The script starts and stops its own cluster (qa/ceph/lib.sh); its output goes to the job's
log line by line; the job fails when it exits non-zero. SMRSTORE_E2E_OUT is the job's
archive/e2e (screenshots).
"""
from __future__ import annotations

import logging
import os
import subprocess
from typing import Any, Dict

from tasks.smrstore_common import REPO, TaskFailed, tool_path

log = logging.getLogger(__name__)


def task(ctx: Any, config: Any) -> None:
    c: Dict[str, Any] = {"script": None, "tool": True, "args": [], "env": {}}
    c.update(config or {})
    unknown = set(c) - {"script", "tool", "args", "env"}
    if unknown or not c["script"]:
        raise TaskFailed("smrstore_script needs `script:` (unknown keys: %s)" % sorted(unknown))
    path = os.path.join(REPO, c["script"])
    if not os.path.isfile(path):
        raise TaskFailed("no script %s" % path)
    args = ["bash", path] + ([tool_path()] if c["tool"] else []) + [str(a) for a in c["args"]]
    env = dict(os.environ)
    env.pop("CEPH_CONF", None)
    env["SMRSTORE_E2E"] = "1"
    env["SMRSTORE_E2E_OUT"] = os.path.join(ctx.archive, "e2e")
    env.update({k: str(v) for k, v in c["env"].items()})
    os.makedirs(env["SMRSTORE_E2E_OUT"], exist_ok=True)
    work = os.path.join(ctx.archive, "work")
    os.makedirs(work, exist_ok=True)
    log.info("running %s", " ".join(args))
    p = subprocess.Popen(args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.stdout is not None
    for line in p.stdout:
        log.info("%s: %s", os.path.basename(path), line.rstrip())
    rc = p.wait()
    if rc != 0:
        raise TaskFailed("%s exited %d" % (c["script"], rc))
