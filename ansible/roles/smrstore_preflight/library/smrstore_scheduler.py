#!/usr/bin/python3
# -*- coding: utf-8 -*-
"""Ansible module of the smrstore_preflight role: sets a block device's I/O scheduler in
sysfs (queue/scheduler) if it is not already the selected one. Check mode: reports only."""

from __future__ import annotations

import os
import re

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: smrstore_scheduler
short_description: I/O scheduler of a block device (sysfs)
options:
  name: {type: str, required: true, description: kernel name (nvme0n1)}
  scheduler: {type: str, default: mq-deadline, description: scheduler to select}
  sysfs_root: {type: path, default: /sys, description: where sysfs is}
"""

RETURN = r"""
previous: {description: the scheduler selected before, returned: always, type: str}
"""


def main():
    module = AnsibleModule(
        argument_spec=dict(name=dict(type="str", required=True),
                           scheduler=dict(type="str", default="mq-deadline"),
                           sysfs_root=dict(type="path", default="/sys")),
        supports_check_mode=True)
    p = module.params
    path = os.path.join(p["sysfs_root"], "block", p["name"], "queue", "scheduler")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError as e:
        module.fail_json(msg=f"cannot read {path}: {e}")
    m = re.search(r"\[([^\]]+)\]", text)
    current = m.group(1) if m else text
    if current == p["scheduler"]:
        module.exit_json(changed=False, previous=current)
    offered = re.sub(r"[\[\]]", "", text).split()
    if m and p["scheduler"] not in offered:
        module.fail_json(msg=f"{p['name']}: scheduler {p['scheduler']} not offered ({text})")
    if not module.check_mode:
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(p["scheduler"])
        except OSError as e:
            module.fail_json(msg=f"cannot set {path} to {p['scheduler']}: {e}")
    module.exit_json(changed=True, previous=current)


if __name__ == "__main__":
    main()
