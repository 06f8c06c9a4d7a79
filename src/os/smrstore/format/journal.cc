#include "format/journal.h"

#include "common/coding.h"

namespace smr {

using namespace journalfmt;

namespace {

void PutU32(std::string* out, uint32_t v) {
  char b[4];
  EncodeFixed32(b, v);
  out->append(b, 4);
}
void PutU64(std::string* out, uint64_t v) {
  char b[8];
  EncodeFixed64(b, v);
  out->append(b, 8);
}
void PutBytes(std::string* out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out->append(s.data(), s.size());
}

// A bounds-checked reader over a payload.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool U8(uint8_t* v) {
    if (in_.size() < 1) return false;
    *v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }
  bool U32(uint32_t* v) {
    if (in_.size() < 4) return false;
    *v = DecodeFixed32(in_.data());
    in_.remove_prefix(4);
    return true;
  }
  bool U64(uint64_t* v) {
    if (in_.size() < 8) return false;
    *v = DecodeFixed64(in_.data());
    in_.remove_prefix(8);
    return true;
  }
  bool Bytes(std::string* v) {
    uint32_t n;
    if (!U32(&n) || n > kMaxItemBytes || in_.size() < n) return false;
    v->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool empty() const { return in_.empty(); }
  size_t left() const { return in_.size(); }

 private:
  std::string_view in_;
};

Status Bad(const std::string& what) { return Status::Corruption("journal payload: " + what); }

}  // namespace

JournalOp JournalOp::Put(std::string k, std::string v) {
  JournalOp op;
  op.kind = kOpPut;
  op.key = std::move(k);
  op.value = std::move(v);
  return op;
}

JournalOp JournalOp::Delete(std::string k) {
  JournalOp op;
  op.kind = kOpDelete;
  op.key = std::move(k);
  return op;
}

bool JournalOp::operator==(const JournalOp& o) const {
  return kind == o.kind && key == o.key && value == o.value && a == o.a && b == o.b &&
         c == o.c && d == o.d;
}

void AppendJournalOp(const JournalOp& op, std::string* out) {
  out->push_back(static_cast<char>(op.kind));
  switch (op.kind) {
    case kOpPut:
      PutBytes(out, op.key);
      PutBytes(out, op.value);
      break;
    case kOpDelete:
      PutBytes(out, op.key);
      break;
    case kOpMount:
    case kOpIds:
      PutU64(out, op.a);
      PutU64(out, op.b);
      break;
    case kOpCheckpointDone:
      PutU64(out, op.a);
      PutU64(out, op.b);
      PutU64(out, op.c);
      break;
    default:  // kOpZoneOpen, kOpCounters
      PutU64(out, op.a);
      PutU64(out, op.b);
      PutU64(out, op.c);
      PutU64(out, op.d);
      break;
  }
}

std::string FinishJournalPayload(uint32_t count, std::string_view encoded_ops) {
  std::string out;
  out.reserve(5 + encoded_ops.size());
  out.push_back(static_cast<char>(kVersion));
  PutU32(&out, count);
  out.append(encoded_ops.data(), encoded_ops.size());
  return out;
}

std::string EncodeJournalOps(const std::vector<JournalOp>& ops) {
  std::string body;
  for (const JournalOp& op : ops) AppendJournalOp(op, &body);
  return FinishJournalPayload(static_cast<uint32_t>(ops.size()), body);
}

Result<std::vector<JournalOp>> DecodeJournalOps(std::string_view payload) {
  Reader r(payload);
  uint8_t version;
  uint32_t count;
  if (!r.U8(&version)) return Bad("empty");
  if (version != kVersion) {
    return Bad("unsupported version " + std::to_string(version) + " (this build reads version " +
               std::to_string(kVersion) + ")");
  }
  if (!r.U32(&count)) return Bad("truncated count");
  // Every op takes at least 5 bytes: a count beyond that is a lie (and no huge reserve).
  if (count > r.left() / 5 + 1) return Bad("op count " + std::to_string(count) + " too large");
  std::vector<JournalOp> ops;
  ops.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    JournalOp op;
    if (!r.U8(&op.kind)) return Bad("truncated at op " + std::to_string(i));
    bool ok = false;
    switch (op.kind) {
      case kOpPut:
        ok = r.Bytes(&op.key) && r.Bytes(&op.value);
        break;
      case kOpDelete:
        ok = r.Bytes(&op.key);
        break;
      case kOpMount:
      case kOpIds:
        ok = r.U64(&op.a) && r.U64(&op.b);
        break;
      case kOpCheckpointDone:
        ok = r.U64(&op.a) && r.U64(&op.b) && r.U64(&op.c);
        break;
      case kOpZoneOpen:
      case kOpCounters:
        ok = r.U64(&op.a) && r.U64(&op.b) && r.U64(&op.c) && r.U64(&op.d);
        break;
      default:
        return Bad("unknown op " + std::to_string(op.kind) + " at op " + std::to_string(i));
    }
    if (!ok) return Bad("truncated op " + std::to_string(i));
    ops.push_back(std::move(op));
  }
  if (!r.empty()) return Bad(std::to_string(r.left()) + " bytes after the last op");
  return ops;
}

std::string EncodeCheckpointChunk(const std::vector<std::pair<std::string, std::string>>& kvs) {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  PutU32(&out, static_cast<uint32_t>(kvs.size()));
  for (const auto& [k, v] : kvs) {
    PutBytes(&out, k);
    PutBytes(&out, v);
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> DecodeCheckpointChunk(
    std::string_view payload) {
  Reader r(payload);
  uint8_t version;
  uint32_t count;
  if (!r.U8(&version)) return Status::Corruption("checkpoint chunk: empty");
  if (version != kVersion) {
    return Status::Corruption("checkpoint chunk: unsupported version " + std::to_string(version) +
                              " (this build reads version " + std::to_string(kVersion) + ")");
  }
  if (!r.U32(&count)) return Status::Corruption("checkpoint chunk: truncated count");
  if (count > r.left() / 8 + 1) return Status::Corruption("checkpoint chunk: count too large");
  std::vector<std::pair<std::string, std::string>> kvs;
  kvs.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string k, v;
    if (!r.Bytes(&k) || !r.Bytes(&v)) {
      return Status::Corruption("checkpoint chunk: truncated pair " + std::to_string(i));
    }
    kvs.emplace_back(std::move(k), std::move(v));
  }
  if (!r.empty()) return Status::Corruption("checkpoint chunk: bytes after the last pair");
  return kvs;
}

}  // namespace smr
