"""Tests of doc/cephadm/pacific-smrstore.patch, run by qa/cephadm/test_patch.sh.

SMR_CEPH_TREE names a tree laid out as Ceph's source (src/python-common/ceph,
src/ceph-volume/ceph_volume, src/cephadm/cephadm) made of Debian's installed 16.2.15
files, patched or not. Against the patched tree every test passes; against the
unpatched one the smrstore tests fail (test_patch.sh checks both), while the bluestore
tests pass on both: they pin Pacific's own behaviour, which the patch must keep.

Nothing here starts a container: cephadm's deploy is run with its `call` and
`call_throws` (every subprocess it starts) replaced by a recorder that answers as
podman and systemctl would, and the unit files it writes are read back. The mgr
module's OSDService runs with empty stand-ins for ceph-mgr's C++ base classes and the
orchestrator's host calls answered here.
"""
import importlib.machinery
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys

import pytest
import yaml

TREE = os.environ['SMR_CEPH_TREE']
ORIG = os.environ.get('SMR_CEPH_ORIG_TREE')
REPO = os.environ.get('SMR_REPO', os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TREE, 'src', 'ceph-volume'))
sys.path.insert(0, os.path.join(TREE, 'src', 'python-common'))

from ceph.deployment.drive_group import DriveGroupSpec, DriveGroupValidationError  # noqa: E402
from ceph.deployment.drive_selection.selector import DriveSelection  # noqa: E402
from ceph.deployment.inventory import Device  # noqa: E402
from ceph.deployment.service_spec import ServiceSpec  # noqa: E402
from ceph.deployment import translate  # noqa: E402

FSID = '2d2fd136-6df1-11ed-a6e2-5254000b1d05'
OSD_FSID = 'a0b1c2d3-0000-4000-8000-00000000a003'
IMAGE = 'registry.example/ceph-smrstore:16.2.15-deb12'
PRELOAD = 'LD_PRELOAD=/usr/lib/smrstore/libsmrstore_osd.so'


def test_modules_come_from_the_tree_under_test():
    import ceph.deployment.drive_group as dg
    import ceph_volume.util.disk as disk
    assert dg.__file__.startswith(TREE), dg.__file__
    assert disk.__file__.startswith(TREE), disk.__file__


# ---------------------------------------------------------------- specs

def spec_from_yaml(text):
    return ServiceSpec.from_json(yaml.safe_load(text))


def doc_spec_yaml():
    """The first ```yaml block of doc/cephadm.md: the spec the operator is told to write."""
    with open(os.path.join(REPO, 'doc', 'cephadm.md')) as f:
        m = re.search(r'```yaml\n(.*?)```', f.read(), re.S)
    assert m, 'doc/cephadm.md has no yaml block'
    return m.group(1)


SMR_SPEC = """
service_type: osd
service_id: smr
placement:
  host_pattern: 'smr*'
spec:
  objectstore: smrstore
  data_devices:
    rotational: 1
    zoned: true
  crush_device_class: smr
"""

BLUE_SPEC = """
service_type: osd
service_id: hdd
placement:
  host_pattern: '*'
spec:
  data_devices:
    rotational: 1
  db_devices:
    rotational: 0
"""


def test_doc_spec_validates():
    spec = spec_from_yaml(doc_spec_yaml())
    assert isinstance(spec, DriveGroupSpec)
    spec.validate()
    assert spec.objectstore == 'smrstore'
    assert spec.data_devices.zoned is True


def test_smrstore_spec_validates_and_round_trips():
    spec = spec_from_yaml(SMR_SPEC)
    spec.validate()
    j = spec.to_json()
    assert j['spec']['data_devices'] == {'rotational': True, 'zoned': True}
    assert 'db_devices' not in j['spec']
    again = ServiceSpec.from_json(j)
    again.validate()
    assert again.data_devices == spec.data_devices


def test_bluestore_spec_validates_as_before():
    spec = spec_from_yaml(BLUE_SPEC)
    spec.validate()
    assert spec.objectstore == 'bluestore'
    assert spec.to_json()['spec']['data_devices'] == {'rotational': True}


BAD = [
    ('db_devices:\n    rotational: 0',
     '`db_devices` is not supported: the metadata (RocksDB) lives in the OSD directory on '
     'the host, /var/lib/ceph/<fsid>/osd.<id>, and the metadata journal in the zones'),
    ('wal_devices:\n    rotational: 0', '`wal_devices` is not supported'),
    ('journal_devices:\n    rotational: 0', '`journal_devices` is not supported'),
    ('encrypted: true', '`encrypted` is not supported'),
    ('block_db_size: 10G', '`block_db_size` is not supported'),
    ('db_slots: 2', '`db_slots` is not supported'),
    ('osds_per_device: 2', '`osds_per_device` must be 1'),
    ('method: raw', '`method` (lvm or raw) does not apply'),
    ('data_allocate_fraction: 0.5', '`data_allocate_fraction` is not supported'),
]


def refusal(text):
    """The DriveGroupValidationError message for a spec (from_json validates too)."""
    with pytest.raises(DriveGroupValidationError) as e:
        spec_from_yaml(text).validate()
    return str(e.value)


@pytest.mark.parametrize('extra,msg', BAD, ids=[m.split('`')[1] for _, m in BAD])
def test_bad_smrstore_spec_is_refused(extra, msg):
    got = refusal(SMR_SPEC + '  ' + extra + '\n')
    assert got.startswith('Failed to validate OSD spec "smr": objectstore smrstore: ' + msg), got


def test_smrstore_data_devices_must_be_zoned():
    assert refusal(SMR_SPEC.replace('    zoned: true\n', '')) == \
        'Failed to validate OSD spec "smr": objectstore smrstore: data_devices must ' \
        'select zoned drives: add `zoned: true` (or list their `paths`)'


def test_unknown_objectstore_is_refused_with_both_names():
    assert refusal(BLUE_SPEC + '  objectstore: zonestore\n') == \
        'Failed to validate OSD spec "hdd": zonestore is not supported. ' \
        "Must be one of ('bluestore', 'smrstore')"


# ---------------------------------------------------------------- inventory + translate

def dev(path, rotational, zoned='none', available=True, size='14.55 TB'):
    sys_api = {'rotational': rotational, 'human_readable_size': size,
               'vendor': 'ATA', 'model': 'HM-SMR 16T' if zoned != 'none' else 'M',
               'size': 16e12}
    if zoned is not None:
        sys_api['zoned'] = zoned
    return Device(path, sys_api=sys_api, available=available,
                  rejected_reasons=[] if available else ['locked'])


def inventory():
    return [
        dev('/dev/sda', '0', available=False),       # the boot SSD, in use
        dev('/dev/sdb', '1', 'host-managed'),
        dev('/dev/sdc', '1', 'host-aware'),
        dev('/dev/sdd', '1'),                        # a CMR disk: not for smrstore
        dev('/dev/sde', '1', 'host-managed', available=False),  # in use
        dev('/dev/sdf', '1', 'host-managed'),
        dev('/dev/nvme0n1', '0', size='1.6 TB'),
        dev('/dev/nvme1n1', '0', size='1.6 TB'),
    ]


def commands(spec_text, disks, claims=None, preview=False):
    spec = spec_from_yaml(spec_text)
    spec.validate()
    sel = DriveSelection(spec, disks)
    return sel, translate.to_ceph_volume(sel, claims, preview=preview).run()


def test_translate_smrstore_prepare_per_zoned_drive():
    sel, cmds = commands(SMR_SPEC, inventory())
    # host-managed only: smrstore refuses host-aware drives (they take random writes)
    assert [d.path for d in sel.data_devices()] == ['/dev/sdb', '/dev/sdf']
    assert cmds == ['smrstore prepare --data /dev/sdb --crush-device-class smr',
                    'smrstore prepare --data /dev/sdf --crush-device-class smr']


def test_translate_smrstore_osd_id_claims_go_to_drives_in_order():
    _, cmds = commands(SMR_SPEC, inventory(), claims=['7'])
    assert cmds == ['smrstore prepare --data /dev/sdb --osd-id 7 --crush-device-class smr',
                    'smrstore prepare --data /dev/sdf --crush-device-class smr']


def test_translate_doc_spec():
    _, cmds = commands(doc_spec_yaml(), inventory())
    assert cmds == ['smrstore prepare --data /dev/sdb', 'smrstore prepare --data /dev/sdf']


def test_translate_smrstore_preview_prepares_nothing():
    _, cmds = commands(SMR_SPEC, inventory(), preview=True)
    assert cmds == []


def test_zoned_filter_needs_the_inventory_fact():
    disks = [dev('/dev/sdb', '1', zoned=None)]
    with pytest.raises(DriveGroupValidationError,
                       match=r'/dev/sdb: the inventory has no `zoned` fact'):
        commands(SMR_SPEC, disks)


def test_bluestore_translate_as_before():
    _, cmds = commands(BLUE_SPEC, inventory())
    assert cmds == ['lvm batch --no-auto /dev/sdb /dev/sdc /dev/sdd /dev/sdf '
                    '--db-devices /dev/nvme0n1 /dev/nvme1n1 --yes --no-systemd']


def test_bluestore_can_leave_zoned_drives_out():
    _, cmds = commands(BLUE_SPEC.replace('    rotational: 1\n', '    rotational: 1\n    zoned: false\n', 1),
                       inventory())
    assert cmds == ['lvm batch --no-auto /dev/sdc /dev/sdd '
                    '--db-devices /dev/nvme0n1 /dev/nvme1n1 --yes --no-systemd']


def test_ceph_volume_inventory_reports_zoned(tmp_path, monkeypatch):
    """ceph-volume's sysfs scan (util/disk.get_devices) on a sysfs tree made here: its
    facts become an inventory Device the zoned filter selects."""
    from ceph_volume.util import disk
    sysblock = tmp_path / 'block'
    for name, zoned, rota in [('sdz', 'host-managed', '1'), ('sdy', 'none', '1'),
                              ('sdx', None, '1')]:
        d = sysblock / name
        for sub in ['queue', 'slaves', 'holders', 'device']:
            (d / sub).mkdir(parents=True)
        (d / 'queue' / 'rotational').write_text(rota + '\n')
        if zoned is not None:  # a kernel before 4.10 has no queue/zoned
            (d / 'queue' / 'zoned').write_text(zoned + '\n')
        (d / 'size').write_text('31251759104\n')
    monkeypatch.setattr(disk, 'get_block_devs_sysfs', lambda path: [
        ['/dev/' + n, '/dev/' + n, 'disk', '/dev/' + n] for n in ['sdx', 'sdy', 'sdz']])
    monkeypatch.setattr(disk, 'udevadm_property', lambda *a, **k: {})
    facts = disk.get_devices(_sys_block_path=str(sysblock))
    assert facts['/dev/sdz']['zoned'] == 'host-managed'
    assert facts['/dev/sdy']['zoned'] == 'none'
    assert facts['/dev/sdx']['zoned'] == ''
    disks = [Device(p, sys_api=f, available=True) for p, f in facts.items()]
    _, cmds = commands(SMR_SPEC.replace('  crush_device_class: smr\n', ''), disks)
    assert cmds == ['smrstore prepare --data /dev/sdz']


def test_unpatched_pacific_refuses_smrstore():
    """Debian's unpatched files, in a separate interpreter: what the patch changes."""
    if not ORIG:
        pytest.skip('SMR_CEPH_ORIG_TREE not set')
    code = r'''
import sys, yaml
sys.path.insert(0, sys.argv[1] + "/src/python-common")
from ceph.deployment.service_spec import ServiceSpec
from ceph.deployment.drive_group import DriveGroupValidationError
for text in sys.argv[2:]:
    try:
        ServiceSpec.from_json(yaml.safe_load(text)).validate()
        print("accepted")
    except DriveGroupValidationError as e:
        print(e)
'''
    no_zoned = SMR_SPEC.replace('    zoned: true\n', '').replace('    zoned: false\n', '')
    blue = BLUE_SPEC + '  objectstore: blue\n'
    out = subprocess.run([sys.executable, '-c', code, ORIG, SMR_SPEC, no_zoned, BLUE_SPEC, blue],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    assert out == [
        'Failed to validate OSD spec "smr.data_devices": Filtering for `zoned` is not supported',
        'Failed to validate OSD spec "smr": smrstore is not supported. '
        "Must be one of ('bluestore')",
        'accepted',
        'accepted',  # Pacific's `not in ('bluestore')` is a substring test
    ]


def test_objectstore_is_compared_whole():
    assert refusal(BLUE_SPEC + '  objectstore: blue\n') == \
        'Failed to validate OSD spec "hdd": blue is not supported. ' \
        "Must be one of ('bluestore', 'smrstore')"


# ---------------------------------------------------------------- cephadm deploy

def load_cephadm(tree=TREE, name='cephadm_under_test'):
    path = os.path.join(tree, 'src', 'cephadm', 'cephadm')
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Host:
    """Answers the commands cephadm runs (podman: check-ceph, the activate probe;
    systemctl) and records them."""

    def __init__(self, check_ceph=(0, '')):
        self.check_ceph = check_ceph
        self.cmds = []

    def __call__(self, ctx, cmd, *a, **k):
        self.cmds.append(list(cmd))
        line = ' '.join(cmd)
        if cmd[-2:] == ['smrstore', 'check-ceph']:
            return '', self.check_ceph[1], self.check_ceph[0]
        if '--bad-option' in cmd:
            return '', 'ceph-volume: error: unrecognized arguments: --bad-option', 2
        if line.startswith('systemctl is-enabled') or line.startswith('systemctl is-active'):
            return 'disabled' if 'is-enabled' in line else 'inactive', '', 1
        return '', '', 0

    def run(self, sub):
        return [c for c in self.cmds if sub in ' '.join(c)]


@pytest.fixture
def cephadm(tmp_path, monkeypatch):
    mod = load_cephadm()
    mod.logger = logging.getLogger('cephadm')  # main() sets it up in the real program
    monkeypatch.setattr(mod, 'LOCK_DIR', str(tmp_path / 'lock'))
    monkeypatch.setattr(mod, 'extract_uid_gid', lambda ctx, *a, **k: (os.getuid(), os.getgid()))
    return mod


def make_ctx(mod, tmp_path, args):
    cfg = tmp_path / 'config.json'
    cfg.write_text(json.dumps({'config': '[global]\nfsid = %s\n' % FSID,
                               'keyring': '[osd.3]\nkey = AQ==\n'}))
    for d in ['data', 'log', 'unit', 'sysctl', 'logrotate']:
        (tmp_path / d).mkdir(exist_ok=True)
    ctx = mod.cephadm_init_ctx([
        '--image', IMAGE, '--data-dir', str(tmp_path / 'data'),
        '--log-dir', str(tmp_path / 'log'), '--unit-dir', str(tmp_path / 'unit'),
        '--sysctl-dir', str(tmp_path / 'sysctl'), '--logrotate-dir', str(tmp_path / 'logrotate')]
        + args[:1] + ['--fsid', FSID, '--config-json', str(cfg)] + args[1:])
    engine = mod.Podman.__new__(mod.Podman)
    engine.path, engine._version = '/usr/bin/podman', (4, 3, 1)
    ctx.container_engine = engine
    return ctx


def deploy(mod, tmp_path, host, monkeypatch):
    monkeypatch.setattr(mod, 'call', host)
    monkeypatch.setattr(mod, 'call_throws', host)
    ctx = make_ctx(mod, tmp_path, ['deploy', '--name', 'osd.3', '--osd-fsid', OSD_FSID])
    mod.command_deploy(ctx)
    d = tmp_path / 'data' / FSID / 'osd.3'
    return (d / 'unit.run').read_text(), (d / 'unit.poststop').read_text()


def prepared(tmp_path, osd_fsid=OSD_FSID):
    """What `ceph-volume smrstore prepare` leaves on the host through cephadm's binds: the
    OSD directory (RocksDB metadata included) and the plugin's record."""
    d = tmp_path / 'data' / FSID / 'smrstore' / 'osd' / 'ceph-3'
    (d / 'smrstore' / 'meta').mkdir(parents=True)
    (d / 'smrstore' / 'meta' / 'CURRENT').write_text('MANIFEST-000005\n')
    for name, text in [('type', 'smrstore'), ('fsid', osd_fsid), ('whoami', '3'),
                       ('keyring', '[osd.3]\nkey = AQ==\n'),
                       ('smrstore_devices', 'zbd:/dev/disk/by-id/wwn-0x5000c500a1b2c3d4')]:
        (d / name).write_text(text + '\n')
    return d


def lines_with(text, sub):
    return [ln for ln in text.splitlines() if sub in ln and ' run ' in ln]


def test_cephadm_deploys_smrstore_osd(cephadm, tmp_path, monkeypatch):
    src = prepared(tmp_path)
    host = Host()
    run, poststop = deploy(cephadm, tmp_path, host, monkeypatch)
    osd = lines_with(run, '--name ceph-%s-osd-3 ' % FSID)
    act = lines_with(run, '--entrypoint /usr/sbin/ceph-volume')
    assert len(osd) == 1 and len(act) == 1, run
    # the preload for the ceph-osd process alone: env(1) sets it for ceph-osd, so the
    # container's init, `podman exec` (cephadm's `ceph -v`) and ceph-volume never see it
    assert ' --entrypoint /usr/bin/env ' in osd[0]
    assert osd[0].split(f' {IMAGE} ')[1].startswith(
        PRELOAD + ' /usr/bin/ceph-osd -n osd.3 -f '), osd[0]
    assert run.count('LD_PRELOAD') == 1 and ' -e LD_PRELOAD' not in run
    assert act[0].endswith(f' {IMAGE} smrstore activate 3 {OSD_FSID} --no-systemd')
    data = tmp_path / 'data' / FSID
    data_dir = data / 'osd.3'
    assert f' -v {data_dir}:/var/lib/ceph/osd/ceph-3:z ' in act[0]
    assert f' -v {data}/smrstore/records:/etc/ceph/smrstore:z ' in act[0]
    assert f' -v {data_dir}:/var/lib/ceph/osd/ceph-3:z ' in osd[0]
    assert ' lvm activate ' not in run and ' activate --osd-id ' not in run
    assert 'deactivate' not in poststop
    # the directory prepare made, metadata included, is now the OSD's data dir
    assert not src.exists()
    assert (data_dir / 'type').read_text() == 'smrstore\n'
    assert (data_dir / 'smrstore' / 'meta' / 'CURRENT').read_text() == 'MANIFEST-000005\n'
    assert (data_dir / 'config').exists()
    # the image's ceph-osd was checked; no `activate --bad-option` probe
    assert len(host.run('smrstore check-ceph')) == 1
    assert not host.run('--bad-option')
    subprocess.run(['bash', '-n', str(data_dir / 'unit.run')], check=True)


def test_cephadm_redeploys_a_deployed_smrstore_osd(cephadm, tmp_path, monkeypatch):
    prepared(tmp_path)
    deploy(cephadm, tmp_path, Host(), monkeypatch)
    host = Host()   # again, as an upgrade or `ceph orch daemon redeploy` does
    run, _ = deploy(cephadm, tmp_path, host, monkeypatch)
    assert run.count(PRELOAD + ' /usr/bin/ceph-osd -n osd.3 -f ') == 1
    assert len(host.run('smrstore check-ceph')) == 1


def test_cephadm_bluestore_osd_unchanged(cephadm, tmp_path, monkeypatch):
    host = Host()
    run, poststop = deploy(cephadm, tmp_path, host, monkeypatch)
    assert 'LD_PRELOAD' not in run and ' smrstore ' not in run and '/smrstore/' not in run
    act = lines_with(run, '--entrypoint /usr/sbin/ceph-volume')
    assert len(act) == 1
    assert act[0].endswith(f' {IMAGE} activate --osd-id 3 --osd-uuid {OSD_FSID} '
                           '--no-systemd --no-tmpfs')
    assert f' lvm deactivate 3 {OSD_FSID}' in poststop
    assert not host.run('check-ceph')
    assert not (tmp_path / 'data' / FSID / 'smrstore').exists()


def test_cephadm_bluestore_unit_files_as_pacific_writes_them(cephadm, tmp_path, monkeypatch):
    """An OSD that is not smrstore: the patched cephadm writes Pacific's unit files,
    byte for byte."""
    if not ORIG:
        pytest.skip('SMR_CEPH_ORIG_TREE not set')
    import shutil
    mine = deploy(cephadm, tmp_path, Host(), monkeypatch)
    shutil.rmtree(tmp_path / 'data')
    pacific = load_cephadm(ORIG, 'cephadm_pacific')
    pacific.logger = cephadm.logger
    monkeypatch.setattr(pacific, 'LOCK_DIR', str(tmp_path / 'lock'))
    monkeypatch.setattr(pacific, 'extract_uid_gid', lambda ctx, *a, **k: (os.getuid(), os.getgid()))
    theirs = deploy(pacific, tmp_path, Host(), monkeypatch)
    assert mine == theirs


def test_cephadm_leaves_another_osds_directory_alone(cephadm, tmp_path, monkeypatch):
    src = prepared(tmp_path, osd_fsid='ffffffff-0000-4000-8000-000000000001')
    run, poststop = deploy(cephadm, tmp_path, Host(), monkeypatch)
    assert 'LD_PRELOAD' not in run and f' lvm deactivate 3 {OSD_FSID}' in poststop
    assert (src / 'type').exists()


def test_cephadm_refuses_an_image_smrstore_does_not_know(cephadm, tmp_path, monkeypatch):
    src = prepared(tmp_path)
    msg = ('check-ceph: /usr/bin/ceph-osd 16.2.15 build-id 0123 unknown build: smrstore '
           'OSDs must not start on it')
    host = Host(check_ceph=(1, msg))
    with pytest.raises(cephadm.Error) as e:
        deploy(cephadm, tmp_path, host, monkeypatch)
    assert str(e.value) == (
        f'osd.3 is an smrstore OSD and `ceph-volume smrstore check-ceph` failed in image '
        f'{IMAGE} (exit 1): {msg}; not deploying it with this image')
    assert not (tmp_path / 'data' / FSID / 'osd.3' / 'unit.run').exists()
    assert (src / 'type').exists()          # nothing moved
    assert not host.run('systemctl start')


def test_cephadm_ceph_volume_keeps_the_plugins_files(cephadm, tmp_path, monkeypatch):
    """`cephadm ceph-volume -- smrstore ...` (how the mgr runs prepare and list): the
    records and OSD directories outlive the container; other ceph-volume commands
    are run as before."""
    runs = []

    def call_throws(ctx, cmd, *a, **k):
        runs.append(' '.join(cmd))
        return '', '', 0
    monkeypatch.setattr(cephadm, 'call_throws', call_throws)
    monkeypatch.setattr(cephadm, 'call', call_throws)
    for args in (['smrstore', 'prepare', '--data', '/dev/sdb'], ['lvm', 'list']):
        ctx = make_ctx(cephadm, tmp_path, ['ceph-volume', '--'] + args)
        cephadm.command_ceph_volume(ctx)
    data = tmp_path / 'data' / FSID / 'smrstore'
    smr, lvm = [r for r in runs if ' run ' in r]
    assert smr.endswith(f' {IMAGE} smrstore prepare --data /dev/sdb')
    assert f' -v {data}/records:/etc/ceph/smrstore:z ' in smr
    assert f' -v {data}/osd:/var/lib/ceph/osd:z ' in smr
    assert (data / 'records').is_dir() and (data / 'osd').is_dir()
    assert lvm.endswith(f' {IMAGE} lvm list')
    assert ':/etc/ceph/smrstore' not in lvm and ':/var/lib/ceph/osd:' not in lvm
    assert 'LD_PRELOAD' not in smr


# ---------------------------------------------------------------- the cephadm mgr module

def import_mgr_osd_service():
    """src/pybind/mgr/cephadm/services/osd.py of the tree; the rest of ceph-mgr's modules
    from Debian's /usr/share/ceph/mgr. ceph_module is ceph-mgr's C++ side: outside a
    ceph-mgr process a stand-in gives its base classes (no method of theirs is called)."""
    import types
    if 'ceph_module' not in sys.modules:
        cm = types.ModuleType('ceph_module')
        cm.__getattr__ = lambda name: type(name, (), {})
        sys.modules['ceph_module'] = cm
    sys.path.insert(0, os.path.join(TREE, 'src', 'pybind', 'mgr'))
    sys.path.append('/usr/share/ceph/mgr')
    import cephadm.services.osd as osd
    import cephadm.serve as serve
    assert osd.__file__.startswith(TREE), osd.__file__
    return osd, serve


class FakeMgr:
    def __init__(self, inventory=()):
        from ceph.deployment.hostspec import HostSpec
        self._cluster_fsid = FSID
        self.hosts = [HostSpec('smr1')]
        mgr = self

        class Cache:
            devices = {'smr1': list(inventory)}

            def has_daemon(self, name, host=None):
                return False

            def get_daemons_by_service(self, name):
                return []

            def invalidate_host_devices(self, host):
                pass

            def invalidate_autotune(self, host):
                pass
        self.cache = Cache()

    def _schedulable_hosts(self):
        return self.hosts

    def get_osd_uuid_map(self, only_up=False):
        # osd.3 and osd.4 were just created by `ceph-volume smrstore prepare`: in the
        # osdmap, not up yet
        return {} if only_up else {'3': OSD_FSID, '4': 'a0b1c2d3-0000-4000-8000-00000000a004'}


@pytest.fixture
def mgr_osd(monkeypatch):
    osd, serve = import_mgr_osd_service()
    calls, created = [], []

    def run_cephadm_json(self, host, entity, command, args, **k):
        calls.append(args)
        return {}  # neither `lvm list` nor `raw list` knows an OSD

    def create_daemon(self, daemon_spec, reconfig=False, osd_uuid_map=None):
        created.append((daemon_spec.host, daemon_spec.name(), daemon_spec.service_name))
        return ''
    monkeypatch.setattr(serve.CephadmServe, '_run_cephadm_json', run_cephadm_json)
    monkeypatch.setattr(serve.CephadmServe, '_create_daemon', create_daemon)
    monkeypatch.setattr(osd.OSDService, 'generate_config', lambda self, ds: ({}, []))
    return osd, serve, calls, created


def smrstore_list(monkeypatch, serve, out, code=0):
    seen = []

    def run_cephadm(self, host, entity, command, args, **k):
        seen.append((host, command, args, k.get('error_ok')))
        return [out], ([] if code == 0 else ['ceph-volume: error: invalid choice: smrstore']), code
    monkeypatch.setattr(serve.CephadmServe, '_run_cephadm', run_cephadm)
    return seen


# what `ceph-volume smrstore list --format json` prints (src/ceph-volume, osd.listing)
LISTING = {
    '3': {'osd_id': 3, 'osd_fsid': OSD_FSID, 'cluster': 'ceph', 'type': 'smrstore',
          'osd_path': '/var/lib/ceph/osd/ceph-3', 'meta_device': None,
          'devices': [{'path': '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4',
                       'current_name': '/dev/sdb', 'state': 'ok'}]},
    '4': {'osd_id': 4, 'osd_fsid': 'ffffffff-0000-4000-8000-000000000004',  # not osdmap's
          'cluster': 'ceph', 'type': 'smrstore', 'devices': []},
}


def test_mgr_deploys_the_osds_smrstore_list_names(mgr_osd, monkeypatch):
    osd, serve, calls, created = mgr_osd
    seen = smrstore_list(monkeypatch, serve, json.dumps(LISTING))
    msg = osd.OSDService(FakeMgr()).deploy_osd_daemons_for_existing_osds('smr1', 'osd.smr', [])
    assert seen == [('smr1', 'ceph-volume',
                     ['--', 'smrstore', 'list', '--format', 'json'], True)]
    assert created == [('smr1', 'osd.3', 'osd.smr')]   # osd.4's fsid is not the osdmap's
    assert msg == "Created osd(s) 3 on host 'smr1'"


def test_mgr_host_without_the_plugin_is_as_before(mgr_osd, monkeypatch):
    osd, serve, calls, created = mgr_osd
    smrstore_list(monkeypatch, serve, '', code=2)
    msg = osd.OSDService(FakeMgr()).deploy_osd_daemons_for_existing_osds('h1', 'osd.hdd', [])
    assert [a[1:3] for a in calls] == [['lvm', 'list'], ['raw', 'list']]
    assert created == []
    assert msg == 'Created no osd(s) on host h1; already created?'


def test_mgr_leaves_out_drives_smrstore_osds_hold(mgr_osd, monkeypatch):
    """ceph-volume's inventory still reports an smrstore OSD's drive as available: a
    re-apply of the spec must not prepare it again."""
    osd, serve, calls, created = mgr_osd
    smrstore_list(monkeypatch, serve, json.dumps(LISTING))
    svc = osd.OSDService(FakeMgr(inventory()))
    [(host, sel)] = svc.prepare_drivegroup(spec_from_yaml(SMR_SPEC))
    assert host == 'smr1'
    assert svc.driveselection_to_ceph_volume(sel) == [
        'smrstore prepare --data /dev/sdf --crush-device-class smr']
    # a BlueStore spec does not ask
    seen = smrstore_list(monkeypatch, serve, json.dumps(LISTING))
    [(host, sel)] = svc.prepare_drivegroup(spec_from_yaml(BLUE_SPEC))
    assert seen == [] and '/dev/sdb' in [d.path for d in sel.data_devices()]


# ---------------------------------------------------------------- the plugin's side

PLUGIN = os.path.join(REPO, 'src', 'ceph-volume')


def plugin():
    """The ceph-volume smrstore plugin of this repository (src/ceph-volume): the commands
    the patch makes cephadm run must parse, and what it prints must be what the mgr
    reads. Skipped in a tree without it."""
    if not os.path.isdir(os.path.join(PLUGIN, 'ceph_volume_smrstore')):
        pytest.skip('no ceph-volume smrstore plugin in ' + PLUGIN)
    if PLUGIN not in sys.path:
        sys.path.insert(0, PLUGIN)
    from ceph_volume_smrstore import main, osd, drives, paths
    return main, osd, drives, paths


def run_plugin(main, argv):
    """As ceph-volume's main runs a plugin: conf.cluster set from --cluster first."""
    from ceph_volume import conf
    saved = conf.__dict__['cluster']
    conf.cluster = 'ceph'
    try:
        with pytest.raises(SystemExit) as e:
            main.SMRStore(argv).main()
    finally:
        conf.cluster = saved
    return e.value.code


def test_plugin_parses_the_commands_cephadm_runs(monkeypatch, capsys):
    main, osd, drives, paths = plugin()
    got = []
    monkeypatch.setattr(osd, 'prepare', lambda *a, **k: got.append(('prepare', a, k)) or {
        'osd_id': 7, 'osd_fsid': OSD_FSID, 'store_uuid': 's', 'devices': [{'path': '/dev/sdb'}]})
    monkeypatch.setattr(osd, 'activate', lambda *a, **k: got.append(('activate', a, k)) or {})
    _, cmds = commands(SMR_SPEC, inventory(), claims=['7'])
    assert run_plugin(main, cmds[0].split(' ')[1:]) == 0       # as the mgr splits it
    # activate as unit.run runs it (test_cephadm_deploys_smrstore_osd)
    assert run_plugin(main, ['activate', '3', OSD_FSID, '--no-systemd']) == 0
    (_, pa, pk), (_, aa, ak) = got
    assert pa[1:6] == (['/dev/sdb'], None, '7', None, 'smr')   # data, meta, id, fsid, class
    assert aa[1:3] == ('3', OSD_FSID) and ak == {'systemd': False}


def test_mgr_reads_the_plugins_own_listing(mgr_osd, monkeypatch, tmp_path, capsys):
    """`smrstore list --format json` from the plugin's real listing code over a record as
    its prepare writes it, fed to the patched mgr."""
    main, osd_plugin, drives, paths = plugin()
    monkeypatch.setattr(paths, 'RECORD_DIR', str(tmp_path))
    by_id = '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4'
    (tmp_path / f'ceph-3-{OSD_FSID}.json').write_text(json.dumps({
        'cluster': 'ceph', 'osd_id': 3, 'osd_fsid': OSD_FSID, 'type': 'smrstore',
        'store_uuid': 'st', 'meta_device': None, 'osd_path': '/var/lib/ceph/osd/ceph-3',
        'devices': [{'path': by_id, 'spec': 'zbd:' + by_id, 'kernel_name': 'sdb',
                     'emulated': False, 'size_bytes': 16 << 40, 'drive_uuid': 'd0',
                     'drive_index': 0}],
        'settings': {}, 'created': '2026-12-06T06:00:00Z'}))
    monkeypatch.setattr(drives, 'label', lambda spec: {'smrstore': True, 'drive_uuid': 'd0',
                                                       'store_uuid': 'st'})
    monkeypatch.setattr(os.path, 'realpath',
                        lambda p, _r=os.path.realpath: '/dev/sdb' if p == by_id else _r(p))
    capsys.readouterr()
    assert run_plugin(main, ['list', '--format', 'json']) == 0
    listing = capsys.readouterr().out
    osd, serve, calls, created = mgr_osd
    smrstore_list(monkeypatch, serve, listing)
    svc = osd.OSDService(FakeMgr(inventory()))
    assert svc.deploy_osd_daemons_for_existing_osds('smr1', 'osd.smr', []) == \
        "Created osd(s) 3 on host 'smr1'"
    [(_, sel)] = svc.prepare_drivegroup(spec_from_yaml(SMR_SPEC))
    assert [d.path for d in sel.data_devices()] == ['/dev/sdf']   # /dev/sdb is osd.3's
