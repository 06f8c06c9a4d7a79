#!/usr/bin/python3
# -*- coding: utf-8 -*-
"""Ansible module of the smrstore_preflight role: finds the zoned block devices of a host
(sysfs queue/zoned, blkzone report), checks the drives an inventory lists for smrstore OSDs
and returns facts for the later roles. Read-only: it changes nothing (check mode safe)."""

from __future__ import annotations

import json
import os
import re
import subprocess

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: smrstore_zoned_drives
short_description: Zoned drives of a host and the smrstore OSD plan
description:
  - Lists every block device whose C(queue/zoned) in sysfs is not C(none), with its zone
    geometry, I/O scheduler, zones in use (C(blkzone report)), signatures (C(blkid -p)),
    partitions, holders and mounts.
  - Resolves the OSD specs of the inventory (C(osds)) and refuses drives that are missing,
    not host-managed, or hold data, a signature, partitions, holders or a mount, unless
    they already belong to an smrstore OSD (C(ceph-volume smrstore list)).
  - With C(auto), plans one OSD per clean host-managed drive not matched by C(auto_exclude).
options:
  osds: {type: list, elements: dict, default: [], description: "[{data: [paths], meta_device: path, osd_id: N, crush_device_class: C}]"}
  auto: {type: bool, default: false, description: one OSD per clean host-managed drive}
  auto_exclude: {type: list, elements: str, default: ['^nullb'], description: regexes of kernel names auto skips}
  allow_data: {type: bool, default: false, description: accept listed drives that hold data (prepare --force wipes them)}
  sysfs_root: {type: path, default: /sys, description: where sysfs is (tests point it at an emulated tree)}
  blkzone_cmd: {type: path, default: blkzone, description: util-linux blkzone}
  ceph_volume_cmd: {type: path, default: ceph-volume, description: ceph-volume with the smrstore plugin}
"""

RETURN = r"""
ansible_facts:
  description: smrstore_zoned_drives (list), smrstore_osd_plan (list), smrstore_existing_osds (dict)
  returned: always
  type: dict
"""

ZONE_RE = re.compile(r"wptr 0x([0-9a-f]+).*zcond:\s*(\d+)\(\w*\)\s*\[type:\s*(\d+)")


def read(path, default=None):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return default


def scheduler_of(text):
    m = re.search(r"\[([^\]]+)\]", text or "")
    return m.group(1) if m else (text or None)


def by_id_links(dev_real):
    links = []
    d = "/dev/disk/by-id"
    if os.path.isdir(d):
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.realpath(p) == dev_real:
                links.append(p)
    return links


def mounted_sources():
    out = set()
    for line in (read("/proc/self/mounts", "") or "").splitlines():
        src = line.split(" ", 1)[0]
        if src.startswith("/"):
            out.add(os.path.realpath(src))
    return out


def zone_report(module, cmd, dev):
    """(zones, sequential zones in use) from blkzone report, or (None, None) with a reason."""
    rc, out, err = module.run_command([cmd, "report", dev])
    if rc != 0:
        return None, None, (err or out).strip() or f"{cmd} report {dev}: rc {rc}"
    zones = used = 0
    for line in out.splitlines():
        m = ZONE_RE.search(line)
        if not m:
            continue
        zones += 1
        cond, ztype = int(m.group(2)), int(m.group(3))
        # type 1 = conventional (no write pointer); cond 1 = empty
        if ztype != 1 and cond != 1:
            used += 1
    return zones, used, None


def signature(module, path):
    rc, out, _ = module.run_command(["blkid", "-p", "-o", "export", path])
    if rc == 0:
        kv = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        return kv.get("TYPE") or kv.get("PTTYPE") or "unknown"
    return None


def existing_osds(module, cmd):
    """ceph-volume smrstore list: {osd_id: {...}} or {} when the plugin is not installed."""
    exe = module.get_bin_path(cmd) if not os.path.isabs(cmd) else (cmd if os.path.exists(cmd) else None)
    if not exe:
        return {}, "ceph-volume not installed"
    rc, out, err = module.run_command([exe, "smrstore", "list", "--format", "json"])
    if rc != 0:
        return {}, f"ceph-volume smrstore list: rc {rc}: {(err or out).strip()[-300:]}"
    try:
        data = json.loads(out or "{}")
    except ValueError as e:
        module.fail_json(msg=f"ceph-volume smrstore list --format json: not JSON ({e}): {out[:300]}")
    return data, None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            osds=dict(type="list", elements="dict", default=[]),
            auto=dict(type="bool", default=False),
            auto_exclude=dict(type="list", elements="str", default=["^nullb"]),
            allow_data=dict(type="bool", default=False),
            sysfs_root=dict(type="path", default="/sys"),
            blkzone_cmd=dict(type="path", default="blkzone"),
            ceph_volume_cmd=dict(type="path", default="ceph-volume"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    block = os.path.join(p["sysfs_root"], "block")
    if not os.path.isdir(block):
        module.fail_json(msg=f"smrstore preflight: no {block} (is sysfs mounted?)")

    osds, osd_note = existing_osds(module, p["ceph_volume_cmd"])
    in_osd = {}  # real device path -> osd id
    for osd_id, o in osds.items():
        for d in o.get("devices", []) or []:
            # {"path": stable name, "current_name": /dev/...} (or a bare path)
            path = (d.get("current_name") or d.get("path")) if isinstance(d, dict) else d
            if path:
                in_osd[os.path.realpath(path)] = str(o.get("osd_id", osd_id))

    mounts = mounted_sources()
    drives = {}
    for name in sorted(os.listdir(block)):
        q = os.path.join(block, name, "queue")
        model = read(os.path.join(q, "zoned"), "none")
        if model == "none":
            continue
        dev = os.path.realpath(os.path.join("/dev", name)) if p["sysfs_root"] == "/sys" else None
        drives[name] = dict(
            name=name, zoned=model, dev=dev,
            nr_zones=int(read(os.path.join(q, "nr_zones"), "0") or 0),
            zone_bytes=int(read(os.path.join(q, "chunk_sectors"), "0") or 0) * 512,
            size_bytes=int(read(os.path.join(block, name, "size"), "0") or 0) * 512,
            max_open_zones=int(read(os.path.join(q, "max_open_zones"), "0") or 0),
            rotational=read(os.path.join(q, "rotational"), "0") == "1",
            scheduler=scheduler_of(read(os.path.join(q, "scheduler"))),
            partitions=sorted(n for n in os.listdir(os.path.join(block, name))
                              if n.startswith(name) and os.path.isdir(os.path.join(block, name, n))),
            holders=sorted(os.listdir(os.path.join(block, name, "holders")))
            if os.path.isdir(os.path.join(block, name, "holders")) else [],
        )

    def inspect(name, path):
        """Fills the per-device checks that need the device node (blkzone, blkid, mounts)."""
        d = drives[name]
        if d.get("inspected"):
            return d
        d["inspected"] = True
        d["dev"] = path
        d["by_id"] = by_id_links(path)
        zones, used, why = zone_report(module, p["blkzone_cmd"], path)
        d["reported_zones"], d["zones_in_use"], d["zone_report_error"] = zones, used, why
        d["signature"] = signature(module, path)
        d["mounted"] = path in mounts
        d["in_osd"] = in_osd.get(path)
        return d

    def problems_of(d):
        out = []
        if d["zoned"] != "host-managed":
            out.append(f"not host-managed (queue/zoned = {d['zoned']})")
        if d["in_osd"] is not None:
            return out  # it holds an smrstore OSD already: data expected
        if d["zone_report_error"]:
            out.append(f"blkzone report failed: {d['zone_report_error']}")
        elif d["zones_in_use"] and not p["allow_data"]:
            out.append(f"holds data: {d['zones_in_use']} of {d['reported_zones']} sequential zones are not empty")
        if d["signature"] and not p["allow_data"]:
            out.append(f"holds a {d['signature']} signature (blkid -p)")
        if d["partitions"]:
            out.append("has partitions " + ", ".join(d["partitions"]))
        if d["holders"]:
            out.append("is held by " + ", ".join(d["holders"]))
        if d["mounted"]:
            out.append("is mounted")
        return out

    errors = []
    plan = []
    listed = set()
    for i, spec in enumerate(p["osds"]):
        data = spec.get("data") or []
        if isinstance(data, str):
            data = [data]
        if not data:
            errors.append(f"smrstore_osds[{i}]: no data drives")
            continue
        devs, ids = [], set()
        for path in data:
            real = os.path.realpath(path)
            name = os.path.basename(real)
            if not os.path.exists(path):
                errors.append(f"{path}: does not exist")
                continue
            if name not in drives:
                model = read(os.path.join(block, name, "queue", "zoned"))
                errors.append(f"{path} ({name}): " + ("not a whole block device in sysfs" if model is None
                                                      else f"not host-managed (queue/zoned = {model})"))
                continue
            if name in listed:
                errors.append(f"{path} ({name}): listed for more than one OSD")
            listed.add(name)
            d = inspect(name, real)
            errors.extend(f"{path} ({name}): {e}" for e in problems_of(d))
            devs.append(real)
            ids.add(d["in_osd"])
        meta = spec.get("meta_device")
        if meta and not os.path.exists(meta):
            errors.append(f"{meta}: meta_device does not exist")
        if len(ids) > 1:
            errors.append(f"smrstore_osds[{i}]: data drives {', '.join(data)} are partly in OSDs "
                          f"({', '.join(sorted(str(x) for x in ids))}): fix the inventory or the OSDs")
        osd = next(iter(ids)) if len(ids) == 1 else None
        plan.append(dict(data=data, devices=devs, meta_device=meta, osd_id=spec.get("osd_id"),
                         crush_device_class=spec.get("crush_device_class"), present_osd=osd))

    skipped = []
    if p["auto"]:
        excl = [re.compile(r) for r in p["auto_exclude"]]
        for name, d in drives.items():
            if name in listed or any(r.search(name) for r in excl):
                continue
            inspect(name, os.path.realpath(os.path.join("/dev", name)))
            why = problems_of(d)
            if why:
                skipped.append(dict(name=name, why=why))
                continue
            path = d["by_id"][0] if d["by_id"] else d["dev"]
            plan.append(dict(data=[path], devices=[d["dev"]], meta_device=None, osd_id=None,
                             crush_device_class=None, present_osd=d["in_osd"]))

    facts = dict(smrstore_zoned_drives=list(drives.values()), smrstore_osd_plan=plan,
                 smrstore_existing_osds=osds, smrstore_auto_skipped=skipped)
    if errors:
        module.fail_json(msg="smrstore preflight refused the drives listed for OSDs: " + "; ".join(errors),
                         problems=errors, ansible_facts=facts)
    module.exit_json(changed=False, ansible_facts=facts, ceph_volume_note=osd_note)


if __name__ == "__main__":
    main()
