// The in-memory fake of kv_store.h: committed data is an immutable std::map replaced whole
// on each commit (copy-on-write), so an iterator over committed data holds a snapshot; a
// batch is an ordered map of pending writes (nullopt = delete) plus a stack of copies for
// its save points. Stricter than RocksDB where a test would want to know: an iterator over
// a batch that was written to since fails with kInvalidArgument, and a batch committed to
// a store that did not make it (or not by a memory store) is kInvalidArgument.

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "common/thread_annotations.h"
#include "kv/kv_store.h"

namespace smr {

namespace {

using Map = std::map<std::string, std::string, std::less<>>;
using Pending = std::map<std::string, std::optional<std::string>, std::less<>>;

// Per-write overhead of the estimate, like a WriteBatch record's tag and varint lengths.
constexpr size_t kRecordOverhead = 3;
// The header every WriteBatch starts with (sequence + count).
constexpr size_t kBatchHeader = 12;

class MemoryKvStore;

// Merges a committed snapshot with (optionally) a batch's pending writes.
class MemoryIterator final : public KvIterator {
 public:
  // `pending` and `generation` belong to the batch (null for committed-only iterators).
  MemoryIterator(std::shared_ptr<const Map> base, const Pending* pending,
                 const uint64_t* generation, KvBounds bounds)
      : base_(std::move(base)),
        pending_(pending),
        generation_(generation),
        created_at_(generation != nullptr ? *generation : 0),
        bounds_(std::move(bounds)) {}

  void Seek(std::string_view target) override {
    if (!CheckBatch()) return;
    const std::string_view from = target < bounds_.lower ? bounds_.lower : target;
    base_it_ = base_->lower_bound(from);
    if (pending_ != nullptr) delta_it_ = pending_->lower_bound(from);
    seeked_ = true;
    Settle();
  }

  bool Valid() const override { return status_.ok() && seeked_ && has_current_; }

  void Next() override {
    if (!Valid() || !CheckBatch()) return;
    // Step past the current key in both sources.
    if (base_it_ != base_->end() && base_it_->first == current_key_) ++base_it_;
    if (pending_ != nullptr && delta_it_ != pending_->end() && delta_it_->first == current_key_) {
      ++delta_it_;
    }
    Settle();
  }

  std::string_view key() const override { return current_key_; }
  std::string_view value() const override { return *current_value_; }
  Status status() const override { return status_; }

 private:
  bool CheckBatch() {
    if (generation_ != nullptr && *generation_ != created_at_) {
      status_ = Status::InvalidArgument(
          "memory kv: batch written while an iterator over it is in use");
      has_current_ = false;
    }
    return status_.ok();
  }

  // Moves to the first live key at or after the current positions of both sources.
  void Settle() {
    has_current_ = false;
    for (;;) {
      const bool base_ok = base_it_ != base_->end();
      const bool delta_ok = pending_ != nullptr && delta_it_ != pending_->end();
      if (!base_ok && !delta_ok) return;
      bool from_delta;
      if (base_ok && delta_ok) {
        from_delta = delta_it_->first <= base_it_->first;
      } else {
        from_delta = delta_ok;
      }
      const std::string& k = from_delta ? delta_it_->first : base_it_->first;
      if (bounds_.upper && k >= *bounds_.upper) return;
      if (from_delta) {
        // The pending write shadows a committed value of the same key.
        if (base_ok && base_it_->first == k) ++base_it_;
        if (!delta_it_->second) {  // pending delete
          ++delta_it_;
          continue;
        }
        current_key_ = k;
        current_value_ = &*delta_it_->second;
      } else {
        current_key_ = k;
        current_value_ = &base_it_->second;
      }
      has_current_ = true;
      return;
    }
  }

  std::shared_ptr<const Map> base_;
  const Pending* pending_;
  const uint64_t* generation_;
  uint64_t created_at_;
  KvBounds bounds_;
  Map::const_iterator base_it_;
  Pending::const_iterator delta_it_;
  bool seeked_ = false;
  bool has_current_ = false;
  std::string current_key_;
  const std::string* current_value_ = nullptr;
  Status status_;
};

class MemoryBatch final : public KvBatch {
 public:
  explicit MemoryBatch(const MemoryKvStore* store) : store_(store) {}

  Status Put(std::string_view key, std::string_view value) override {
    Record(key, std::string(value));
    return Status::OK();
  }
  Status Delete(std::string_view key) override {
    Record(key, std::nullopt);
    return Status::OK();
  }

  Result<std::optional<std::string>> Get(std::string_view key) const override;
  std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const override;

  void SetSavePoint() override { save_points_.push_back(State{pending_, count_, bytes_}); }
  Status RollbackToSavePoint() override {
    if (save_points_.empty()) return Status::NotFound("memory kv: no save point to roll back to");
    State& s = save_points_.back();
    pending_ = std::move(s.pending);
    count_ = s.count;
    bytes_ = s.bytes;
    save_points_.pop_back();
    ++generation_;
    return Status::OK();
  }
  Status PopSavePoint() override {
    if (save_points_.empty()) return Status::NotFound("memory kv: no save point to pop");
    save_points_.pop_back();
    return Status::OK();
  }

  size_t Count() const override { return count_; }
  size_t ApproximateBytes() const override { return kBatchHeader + bytes_; }

 private:
  friend class MemoryKvStore;

  struct State {
    Pending pending;
    size_t count;
    size_t bytes;
  };

  void Record(std::string_view key, std::optional<std::string> value) {
    bytes_ += kRecordOverhead + key.size() + (value ? value->size() : 0);
    ++count_;
    ++generation_;
    auto it = pending_.find(key);
    if (it == pending_.end()) {
      pending_.emplace(std::string(key), std::move(value));
    } else {
      it->second = std::move(value);
    }
  }

  void Clear() {
    pending_.clear();
    save_points_.clear();
    count_ = 0;
    bytes_ = 0;
    ++generation_;
  }

  const MemoryKvStore* store_;
  Pending pending_;
  std::vector<State> save_points_;
  size_t count_ = 0;
  size_t bytes_ = 0;
  // Bumped by every change of pending_, so iterators over the batch notice.
  uint64_t generation_ = 0;
};

class MemoryKvStore final : public KvStore {
 public:
  MemoryKvStore() : committed_(std::make_shared<const Map>()) {}

  Result<std::optional<std::string>> Get(std::string_view key) const override {
    const std::shared_ptr<const Map> snap = Snapshot();
    auto it = snap->find(key);
    if (it == snap->end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }

  std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const override {
    return std::make_unique<MemoryIterator>(Snapshot(), nullptr, nullptr, bounds);
  }

  std::unique_ptr<KvBatch> NewBatch() override { return std::make_unique<MemoryBatch>(this); }

  // Nothing is durable in the fake: every commit is as durable as it gets already.
  Status SyncWal() override { return Status::OK(); }

  Status Commit(KvBatch* kv_batch, bool /*sync*/) override {
    // The fake never crosses the plugin boundary, so RTTI may check the caller here.
    auto* batch = dynamic_cast<MemoryBatch*>(kv_batch);
    if (batch == nullptr || batch->store_ != this) {
      return Status::InvalidArgument("memory kv: batch committed to a store that did not make it");
    }
    {
      MutexLock lock(&mu_);
      auto next = std::make_shared<Map>(*committed_);
      for (const auto& [key, value] : batch->pending_) {
        if (value) {
          (*next)[key] = *value;
        } else {
          next->erase(key);
        }
      }
      committed_ = std::move(next);
    }
    batch->Clear();
    return Status::OK();
  }

  uint64_t ApproximateSizeBytes() override {
    const std::shared_ptr<const Map> snap = Snapshot();
    uint64_t bytes = 0;
    for (const auto& [key, value] : *snap) bytes += key.size() + value.size();
    return bytes;
  }

  std::string PropertyDump() override {
    const std::shared_ptr<const Map> snap = Snapshot();
    return "memory kv store: " + std::to_string(snap->size()) + " keys\n";
  }

  std::shared_ptr<const Map> Snapshot() const {
    MutexLock lock(&mu_);
    return committed_;
  }

 private:
  mutable Mutex mu_;
  std::shared_ptr<const Map> committed_ SMR_GUARDED_BY(mu_);
};

Result<std::optional<std::string>> MemoryBatch::Get(std::string_view key) const {
  auto it = pending_.find(key);
  if (it != pending_.end()) return it->second;
  return store_->Get(key);
}

std::unique_ptr<KvIterator> MemoryBatch::NewIterator(const KvBounds& bounds) const {
  return std::make_unique<MemoryIterator>(store_->Snapshot(), &pending_, &generation_, bounds);
}

}  // namespace

std::unique_ptr<KvStore> NewMemoryKvStore() { return std::make_unique<MemoryKvStore>(); }

}  // namespace smr
