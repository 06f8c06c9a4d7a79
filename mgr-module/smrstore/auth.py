"""API tokens.

A token is 32 random bytes (``secrets.token_urlsafe``), shown once when created.  Only a
salted SHA-256 of it is stored (in the mgr's config-key store under ``token/<name>``);
checking a presented token hashes it with each stored salt and compares in constant time
(``hmac.compare_digest``).  The tokens are random and long, so a fast hash is enough: there
is no password to brute-force.
"""

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Protocol

KEY_PREFIX = "token/"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class KVStore(Protocol):
    """The part of MgrModule's store API the token store uses."""

    def get_store_prefix(self, key_prefix: str) -> Dict[str, str]: ...

    def set_store(self, key: str, val: Optional[str]) -> None: ...


class TokenError(ValueError):
    pass


@dataclass(frozen=True)
class TokenRecord:
    name: str
    salt: str
    digest: str
    created: float


def _digest(salt: str, token: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + token.encode("utf-8")).hexdigest()


class TokenStore:
    def __init__(self, kv: KVStore) -> None:
        self._kv = kv
        self._lock = threading.Lock()
        self._cache: Optional[Dict[str, TokenRecord]] = None

    def _load(self) -> Dict[str, TokenRecord]:
        if self._cache is None:
            out: Dict[str, TokenRecord] = {}
            for key, val in self._kv.get_store_prefix(KEY_PREFIX).items():
                name = key[len(KEY_PREFIX):]
                try:
                    r = json.loads(val)
                    out[name] = TokenRecord(name, str(r["salt"]), str(r["digest"]),
                                            float(r["created"]))
                except (ValueError, KeyError, TypeError):
                    continue    # a damaged record authorizes nothing
            self._cache = out
        return self._cache

    def reload(self) -> None:
        with self._lock:
            self._cache = None

    def create(self, name: str, now: Optional[float] = None) -> str:
        """Create a token called ``name``; returns the token (the only time it is known)."""
        if not NAME_RE.match(name):
            raise TokenError(f"invalid token name {name!r}: use 1-64 letters, digits, '_', '.', "
                             "'-', starting with a letter or digit")
        with self._lock:
            tokens = self._load()
            if name in tokens:
                raise TokenError(f"token {name!r} exists; remove it first "
                                 f"('ceph smrstore token rm {name}')")
            token = secrets.token_urlsafe(32)
            salt = secrets.token_hex(16)
            rec = TokenRecord(name, salt, _digest(salt, token),
                              time.time() if now is None else now)
            self._kv.set_store(KEY_PREFIX + name, json.dumps(
                {"salt": rec.salt, "digest": rec.digest, "created": rec.created}))
            tokens[name] = rec
            return token

    def remove(self, name: str) -> None:
        with self._lock:
            tokens = self._load()
            if name not in tokens:
                raise TokenError(f"no token named {name!r}")
            self._kv.set_store(KEY_PREFIX + name, None)
            del tokens[name]

    def list(self) -> List[TokenRecord]:
        with self._lock:
            return sorted(self._load().values(), key=lambda r: r.name)

    def verify(self, token: Optional[str]) -> Optional[str]:
        """The name of the token that matches, or None."""
        if not token:
            return None
        with self._lock:
            records = list(self._load().values())
        match: Optional[str] = None
        for r in records:
            # Every record is checked (no early exit) so timing says nothing about which.
            if hmac.compare_digest(_digest(r.salt, token), r.digest):
                match = r.name
        return match
