// On-disk format v1 is frozen (doc/format.md, "Versions"): the pre-release layouts a build
// once still read are refused at mount with an error that names the encoding, the version
// found and the version this build reads; the refusal changes nothing (the store mounts
// again once the old value is put back), and a store that is merely new is not mistaken
// for an old one.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "kv/kv_store.h"
#include "meta/key_schema.h"
#include "meta/onode.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

class FormatFreezeTest : public ::testing::Test {
 protected:
  std::string Store() const { return dir_.path() + "/store"; }
  std::vector<std::string> Specs() const {
    return {"emu:" + dir_.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"};
  }

  void Mkfs() { ASSERT_OK(Store::Mkfs(Store(), Specs(), StoreOptions())); }

  // A collection with one object of `bytes` bytes (1 MiB: in a data zone; 100: inline).
  void PutObject(size_t bytes) {
    auto s = Store::Open(Store());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    Transaction t;
    t.MkColl("1.0_head", 0);
    ObjectId o;
    o.pool = 1;
    o.name = "x";
    t.Write("1.0_head", o, 0, std::string(bytes, 'x'));
    ASSERT_OK((*s)->Apply(std::move(t)));
    ASSERT_OK((*s)->Close());
  }

  // Runs `edit` on the store's RocksDB, as raw keys and values.
  void EditMeta(const std::function<void(KvStore*, KvBatch*)>& edit) {
    auto kv = OpenKvStore(Store() + "/meta", KvOpenMode::kOpen);
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    auto batch = (*kv)->NewBatch();
    edit(kv->get(), batch.get());
    ASSERT_OK((*kv)->Commit(batch.get(), /*sync=*/true));
  }

  // Both mounts (read-write and read-only) fail with `code` and a message holding `want`.
  void ExpectRefused(Status::Code code, const std::string& want) {
    for (bool read_only : {false, true}) {
      auto s = Store::Open(Store(), nullptr, read_only);
      ASSERT_FALSE(s.ok()) << "read_only=" << read_only;
      EXPECT_TRUE(s.status().code() == code) << s.status().ToString();
      EXPECT_NE(s.status().ToString().find(want), std::string::npos) << s.status().ToString();
    }
  }

  void ExpectMounts() {
    auto s = Store::Open(Store());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto got = (*s)->ListCollections();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_OK((*s)->Close());
  }

  smr::testing::ScratchDir dir_;
};

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// ZoneMeta version 1 (pre-release: no footer_at) was decoded as version 2 with footer_at
// 0 until the format froze; now a store holding one is refused at mount.
TEST_F(FormatFreezeTest, ZoneValueVersion1IsRefusedAtMount) {
  Mkfs();
  PutObject(1 << 20);
  std::string key, v2;
  EditMeta([&](KvStore* kv, KvBatch* batch) {
    auto it = kv->NewIterator(KvBounds{std::string(1, keys::kZonePrefix),
                                       std::string(1, keys::kZonePrefix + 1)});
    for (it->Seek(std::string(1, keys::kZonePrefix)); it->Valid(); it->Next()) {
      Result<ZoneMeta> z = DecodeZoneMeta(it->value());
      ASSERT_OK(z.status());
      if (z->stream == 0 || z->live_bytes == 0) continue;  // a zone holding the object
      key = std::string(it->key());
      v2 = std::string(it->value());
      std::string v1(1, '\x01');
      v1.push_back(static_cast<char>(z->stream));
      v1.push_back(static_cast<char>(z->sealed ? 1 : 0));
      PutVarint(z->live_bytes, &v1);
      PutVarint(z->committed_wp, &v1);
      PutVarint(z->opened_seq, &v1);
      ASSERT_OK(batch->Put(key, v1));
      break;
    }
    ASSERT_OK(it->status());
  });
  ASSERT_FALSE(key.empty()) << "no zone holds the object";
  Result<std::pair<uint16_t, uint32_t>> id = keys::DecodeZoneKey(key);
  ASSERT_OK(id.status());
  ExpectRefused(Status::Code::kCorruption,
                "zone " + std::to_string(id->first) + "/" + std::to_string(id->second) +
                    ": zone value: encoding version 1 is not supported (this build reads "
                    "version 2)");
  // Nothing changed: with its version-2 value back the store mounts.
  EditMeta([&](KvStore*, KvBatch* batch) { ASSERT_OK(batch->Put(key, v2)); });
  ExpectMounts();
}

// A store made before the metadata journal has collections and objects but no checkpoint
// (the `S journal` value). It used to get its first checkpoint at its next mount; now it
// is refused, before anything is written.
TEST_F(FormatFreezeTest, StoreMadeBeforeTheJournalIsRefused) {
  Mkfs();
  PutObject(100);  // inline: no data zone, so no zone value refuses it first
  const std::string journal_key = keys::ValueKey("journal");
  std::string state;
  EditMeta([&](KvStore* kv, KvBatch* batch) {
    auto v = kv->Get(journal_key);
    ASSERT_TRUE(v.ok() && v->has_value());
    state = **v;
    ASSERT_OK(batch->Delete(journal_key));
  });
  ExpectRefused(Status::Code::kNotSupported,
                "a store made before the metadata journal (a pre-release layout of store "
                "format 1) is not supported (this build reads store format 1 with its "
                "metadata journal, journal payload version 1)");
  EditMeta([&](KvStore*, KvBatch* batch) { ASSERT_OK(batch->Put(journal_key, state)); });
  ExpectMounts();
}

// A new store is not an old one: mkfs mounts it once to write the first checkpoint, and a
// crash before that completed leaves it with no checkpoint and nothing committed. Its next
// mount writes the checkpoint (qa/crash covers the real crash).
TEST_F(FormatFreezeTest, NewStoreWithoutCheckpointStillMounts) {
  Mkfs();
  const std::string journal_key = keys::ValueKey("journal");
  EditMeta([&](KvStore*, KvBatch* batch) { ASSERT_OK(batch->Delete(journal_key)); });
  ExpectMounts();
  EditMeta([&](KvStore* kv, KvBatch*) {
    auto v = kv->Get(journal_key);
    ASSERT_TRUE(v.ok() && v->has_value()) << "the mount wrote no checkpoint";
  });
  PutObject(1 << 20);
  ExpectMounts();
}

}  // namespace
}  // namespace smr
