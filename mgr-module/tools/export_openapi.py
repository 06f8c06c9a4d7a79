#!/usr/bin/python3
"""Writes the REST API's OpenAPI document (no ceph-mgr needed): the web console generates
its TypeScript client from it.  Usage: tools/export_openapi.py [OUT] (default: stdout)."""

import json
import os
import sys
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from smrstore.api import create_app  # noqa: E402
from smrstore.health import HealthCheck, Thresholds  # noqa: E402
from smrstore.history import History  # noqa: E402
from smrstore.model import Snapshot  # noqa: E402


class _NoData:
    """Enough of a DataProvider to build the app; the spec does not depend on data."""

    def snapshot(self) -> Snapshot:
        return Snapshot(time=0.0, daemons={}, errors=[])

    def history(self) -> History:
        return History()

    def health_checks(self) -> List[HealthCheck]:
        return []

    def thresholds(self) -> Thresholds:
        return Thresholds()

    def verify_token(self, token: Optional[str]) -> Optional[str]:
        return None


def main(argv: List[str]) -> int:
    if len(argv) > 2:
        print("usage: export_openapi.py [OUT]", file=sys.stderr)
        return 2
    spec = create_app(_NoData()).openapi()
    text = json.dumps(spec, indent=2, sort_keys=True) + "\n"
    if len(argv) == 2:
        with open(argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
