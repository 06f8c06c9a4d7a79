"""ceph-mgr module smrstore (see module.py).  The plain modules (model, health, history,
prometheus, auth, api, views, cli) import without ceph-mgr, for tests and tools."""

try:
    import mgr_module  # noqa: F401  (present only inside ceph-mgr)
except ImportError:
    pass
else:
    from .module import Module  # noqa: F401
