"""`ceph-volume smrstore`: smrstore OSDs (zoned HM-SMR / ZNS data drives, RocksDB metadata on
flash) provisioned with Ceph's own ceph-volume, loaded through its `ceph_volume_handlers`
entry point (see main.py for the subcommands, doc/operations.md for the procedures)."""

__version__ = "0.1.0"
