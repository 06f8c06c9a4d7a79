import json
import re
from typing import Dict, Optional

import pytest

from smrstore.auth import KEY_PREFIX, TokenError, TokenStore


class DictKV:
    def __init__(self) -> None:
        self.data: Dict[str, str] = {}

    def get_store_prefix(self, key_prefix: str) -> Dict[str, str]:
        return {k: v for k, v in self.data.items() if k.startswith(key_prefix)}

    def set_store(self, key: str, val: Optional[str]) -> None:
        if val is None:
            self.data.pop(key, None)
        else:
            self.data[key] = val


def test_create_verify_remove() -> None:
    kv = DictKV()
    ts = TokenStore(kv)
    tok = ts.create("web", now=5.0)
    assert len(tok) >= 40
    assert ts.verify(tok) == "web"
    assert ts.verify(tok + "x") is None
    assert ts.verify("") is None and ts.verify(None) is None
    other = ts.create("cli")
    assert other != tok and ts.verify(other) == "cli"
    assert [(r.name, r.created) for r in ts.list()][1] == ("web", 5.0)
    ts.remove("web")
    assert ts.verify(tok) is None and ts.verify(other) == "cli"
    with pytest.raises(TokenError, match="no token named 'web'"):
        ts.remove("web")


def test_only_a_salted_hash_is_stored() -> None:
    kv = DictKV()
    a = TokenStore(kv).create("a")
    b = TokenStore(kv).create("b")
    stored = json.dumps(kv.data)
    assert a not in stored and b not in stored
    ra, rb = json.loads(kv.data[KEY_PREFIX + "a"]), json.loads(kv.data[KEY_PREFIX + "b"])
    assert ra["salt"] != rb["salt"] and len(ra["digest"]) == 64


def test_tokens_survive_a_restart() -> None:
    kv = DictKV()
    tok = TokenStore(kv).create("web")
    assert TokenStore(kv).verify(tok) == "web"


def test_bad_names_and_duplicates() -> None:
    ts = TokenStore(DictKV())
    for bad in ("", "-x", "a b", "a/b", "x" * 65):
        with pytest.raises(TokenError, match="invalid token name"):
            ts.create(bad)
    ts.create("web")
    with pytest.raises(TokenError, match="token 'web' exists"):
        ts.create("web")


def test_damaged_record_authorizes_nothing() -> None:
    kv = DictKV()
    kv.data[KEY_PREFIX + "junk"] = "{not json"
    kv.data[KEY_PREFIX + "partial"] = json.dumps({"salt": "00"})
    ts = TokenStore(kv)
    assert ts.verify("anything") is None and ts.list() == []


def test_token_and_salt_sizes() -> None:
    # 32 random bytes, base64url without padding: 43 characters; a 16-byte salt per token.
    kv = DictKV()
    tok = TokenStore(kv).create("web")
    assert len(tok) == 43 and re.fullmatch(r"[A-Za-z0-9_-]{43}", tok)
    assert re.fullmatch(r"[0-9a-f]{32}", json.loads(kv.data[KEY_PREFIX + "web"])["salt"])


def test_records_survive_a_restart_whole() -> None:
    kv = DictKV()
    TokenStore(kv).create("web", now=1234.5)
    [rec] = TokenStore(kv).list()
    assert (rec.name, rec.created) == ("web", 1234.5)


def test_removal_is_stored() -> None:
    kv = DictKV()
    ts = TokenStore(kv)
    tok = ts.create("web")
    ts.remove("web")
    assert kv.data == {}
    assert TokenStore(kv).verify(tok) is None      # after a restart too


def test_damaged_record_does_not_hide_the_others() -> None:
    kv = DictKV()
    kv.data[KEY_PREFIX + "a-junk"] = "{not json"
    kv.data[KEY_PREFIX + "b-partial"] = json.dumps({"salt": "00", "digest": "x"})
    tok = TokenStore(kv).create("c-web")
    ts = TokenStore(kv)
    assert ts.verify(tok) == "c-web" and [r.name for r in ts.list()] == ["c-web"]


def test_reload_sees_tokens_changed_elsewhere() -> None:
    kv = DictKV()
    mine = TokenStore(kv)
    assert mine.list() == []             # cached
    tok = TokenStore(kv).create("web")   # e.g. another mgr wrote the store
    assert mine.verify(tok) is None
    mine.reload()
    assert mine.verify(tok) == "web"


def test_invalid_name_message() -> None:
    with pytest.raises(TokenError) as e:
        TokenStore(DictKV()).create("a b")
    assert str(e.value) == ("invalid token name 'a b': use 1-64 letters, digits, '_', '.', '-', "
                            "starting with a letter or digit")
