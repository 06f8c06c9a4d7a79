// FaultKvStore and ScopedKvStoreFaults (kv/testing/fault_kv.h).
#include "kv/testing/fault_kv.h"

#include <utility>

namespace smr {

namespace {

const char* OpName(KvFaultOp op) {
  switch (op) {
    case KvFaultOp::kSyncWal: return "KvStore::SyncWal";
    case KvFaultOp::kCommitSync: return "KvStore::Commit(sync=true)";
    case KvFaultOp::kCommitNoSync: return "KvStore::Commit(sync=false)";
  }
  return "KvStore::?";
}

class FaultKvStore final : public KvStore {
 public:
  FaultKvStore(std::unique_ptr<KvStore> inner, std::shared_ptr<KvFaults> faults)
      : inner_(std::move(inner)), faults_(std::move(faults)) {}

  Result<std::optional<std::string>> Get(std::string_view key) const override {
    return inner_->Get(key);
  }
  std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const override {
    return inner_->NewIterator(bounds);
  }
  std::unique_ptr<KvBatch> NewBatch() override { return inner_->NewBatch(); }
  Status Commit(KvBatch* batch, bool sync) override {
    SMR_RETURN_IF_ERROR(
        faults_->Enter(sync ? KvFaultOp::kCommitSync : KvFaultOp::kCommitNoSync));
    return inner_->Commit(batch, sync);
  }
  Status SyncWal() override {
    SMR_RETURN_IF_ERROR(faults_->Enter(KvFaultOp::kSyncWal));
    return inner_->SyncWal();
  }
  uint64_t ApproximateSizeBytes() override { return inner_->ApproximateSizeBytes(); }
  std::string PropertyDump() override { return inner_->PropertyDump(); }

 private:
  const std::unique_ptr<KvStore> inner_;
  const std::shared_ptr<KvFaults> faults_;
};

}  // namespace

void KvFaults::FailNext(KvFaultOp op, uint64_t count, uint64_t skip) {
  MutexLock lock(&mu_);
  ops_[Index(op)].skip = skip;
  ops_[Index(op)].fail = count;
}

void KvFaults::HoldNext(KvFaultOp op) {
  MutexLock lock(&mu_);
  ops_[Index(op)].hold_next = true;
}

bool KvFaults::WaitHeld(KvFaultOp op, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexUniqueLock lock(&mu_);
  while (!ops_[Index(op)].holding) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    cv_.WaitFor(&lock, deadline - now);
  }
  return true;
}

void KvFaults::Release(KvFaultOp op) {
  {
    MutexLock lock(&mu_);
    OpState& o = ops_[Index(op)];
    o.hold_next = false;
    if (o.holding) o.released = true;
  }
  cv_.NotifyAll();
}

void KvFaults::Disarm() {
  {
    MutexLock lock(&mu_);
    for (OpState& o : ops_) {
      o.skip = 0;
      o.fail = 0;
      o.hold_next = false;
      if (o.holding) o.released = true;
    }
  }
  cv_.NotifyAll();
}

uint64_t KvFaults::calls(KvFaultOp op) const {
  MutexLock lock(&mu_);
  return ops_[Index(op)].calls;
}

uint64_t KvFaults::failed(KvFaultOp op) const {
  MutexLock lock(&mu_);
  return ops_[Index(op)].failed;
}

Status KvFaults::Enter(KvFaultOp op) {
  MutexUniqueLock lock(&mu_);
  if (ops_[Index(op)].hold_next) {
    ops_[Index(op)].hold_next = false;
    ops_[Index(op)].holding = true;
    cv_.NotifyAll();  // WaitHeld
    while (!ops_[Index(op)].released) cv_.Wait(&lock);
    ops_[Index(op)].holding = false;
    ops_[Index(op)].released = false;
  }
  OpState& o = ops_[Index(op)];
  const uint64_t n = ++o.calls;
  if (o.skip > 0) {
    --o.skip;
    return Status::OK();
  }
  if (o.fail == 0) return Status::OK();
  if (o.fail != kForever) --o.fail;
  ++o.failed;
  return Status::IOError(std::string("injected fault: ") + OpName(op) + " failed (call " +
                         std::to_string(n) + ")");
}

std::unique_ptr<KvStore> NewFaultKvStore(std::unique_ptr<KvStore> inner,
                                         std::shared_ptr<KvFaults> faults) {
  return std::make_unique<FaultKvStore>(std::move(inner), std::move(faults));
}

ScopedKvStoreFaults::ScopedKvStoreFaults(std::string path_prefix,
                                         std::shared_ptr<KvFaults> faults)
    : wrapped_(std::make_shared<std::atomic<uint64_t>>(0)) {
  // The new wrapper chains to the old one for paths outside the prefix; it holds its own
  // copy of it, so it stays valid if a store opens while this scope ends.
  auto chained = std::make_shared<KvStoreWrapper>();
  auto wrapped = wrapped_;
  old_ = SetKvStoreWrapper([prefix = std::move(path_prefix), faults = std::move(faults),
                            chained, wrapped](const std::string& path, KvOpenMode mode,
                                              std::unique_ptr<KvStore> kv) {
    if (path.compare(0, prefix.size(), prefix) == 0) {
      ++*wrapped;
      return NewFaultKvStore(std::move(kv), faults);
    }
    return *chained ? (*chained)(path, mode, std::move(kv)) : std::move(kv);
  });
  *chained = old_;
}

ScopedKvStoreFaults::~ScopedKvStoreFaults() { SetKvStoreWrapper(std::move(old_)); }

}  // namespace smr
