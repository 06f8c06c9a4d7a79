#include "store/superblock_log.h"

#include <algorithm>
#include <string>

namespace smr {

namespace {

uint64_t SlotsIn(const ZoneInfo& z) {
  const uint64_t usable = z.is_conventional() ? z.length : z.capacity;
  // A conventional zone holds a small ring: reading it back stays cheap.
  return std::min<uint64_t>(usable / kSuperblockSlot, z.is_conventional() ? 16 : UINT64_MAX);
}

std::string SlotBytes(const StoreSuperblock& sb) {
  RecordHeader h;
  h.type = RecordType::kSuperblock;
  h.seq = sb.sequence;
  std::string out;
  AppendRecord(h, EncodeStoreSuperblock(sb), &out);
  out.resize(kSuperblockSlot, '\0');
  return out;
}

// Valid superblock in one slot, if any.
std::optional<StoreSuperblock> DecodeSlot(const char* slot) {
  auto h = DecodeRecordHeader(slot);
  if (!h.ok() || h->type != RecordType::kSuperblock) return std::nullopt;
  if (h->record_bytes() > kSuperblockSlot) return std::nullopt;
  const char* payload = slot + 4096;
  if (!VerifyPayload(*h, payload).ok()) return std::nullopt;
  auto sb = DecodeStoreSuperblock(std::string_view(payload, h->payload_len));
  if (!sb.ok()) return std::nullopt;
  return *sb;
}

}  // namespace

Status WriteSuperblock(ZonedDevice* dev, const std::vector<uint32_t>& reserved,
                       const StoreSuperblock& sb) {
  if (reserved.empty()) return Status::InvalidArgument("drive has no reserved zones");
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(reserved.front(),
                                                    reserved.back() - reserved.front() + 1));
  const std::string bytes = SlotBytes(sb);
  const ZoneInfo& first = zones[0];
  if (first.is_conventional()) {
    // Ring of slots in the first reserved (conventional) zone; the second, if also
    // conventional, holds the same ring as a mirror.
    for (uint32_t r : reserved) {
      const ZoneInfo& z = zones[r - reserved.front()];
      if (!z.is_conventional()) continue;
      const uint64_t slot = sb.sequence % SlotsIn(z);
      SMR_RETURN_IF_ERROR(dev->Write(z.start + slot * kSuperblockSlot, bytes.data(), bytes.size()));
    }
    return dev->Flush();
  }
  // Sequential reserved zones: append to the zone in use; roll over to the other one.
  const ZoneInfo* current = nullptr;
  for (uint32_t r : reserved) {
    const ZoneInfo& z = zones[r - reserved.front()];
    if (z.cond == ZoneCondition::kEmpty || z.cond == ZoneCondition::kFull) continue;
    current = &z;  // the partially written one is the one in use
  }
  if (current == nullptr) {
    for (uint32_t r : reserved) {
      const ZoneInfo& z = zones[r - reserved.front()];
      if (z.cond == ZoneCondition::kEmpty) {
        current = &z;
        break;
      }
    }
  }
  if (current == nullptr || current->remaining() < kSuperblockSlot) {
    // Both full, or the current one has no room: reset the *other* zone (the older copies)
    // and continue there, so the newest copy always stays readable.
    const ZoneInfo* other = nullptr;
    if (current == nullptr) {
      // Both full: the older copies are in the zone whose last copy is older (copies are
      // appended in sequence order, so a zone's last slot holds its newest).
      uint64_t oldest = UINT64_MAX;
      std::string slot(kSuperblockSlot, '\0');
      for (uint32_t r : reserved) {
        const ZoneInfo& z = zones[r - reserved.front()];
        const uint64_t slots = z.capacity / kSuperblockSlot;
        uint64_t seq = 0;  // no readable copy: older than any
        if (slots > 0 && dev->Read(z.start + (slots - 1) * kSuperblockSlot, slot.data(),
                                   slot.size()).ok()) {
          if (auto sb = DecodeSlot(slot.data())) seq = sb->sequence;
        }
        if (other == nullptr || seq < oldest) {
          other = &z;
          oldest = seq;
        }
      }
    }
    for (uint32_t r : reserved) {
      const ZoneInfo& z = zones[r - reserved.front()];
      if (current != nullptr && z.start != current->start) other = &z;
    }
    if (other == nullptr) other = &zones[0];
    SMR_RETURN_IF_ERROR(dev->ResetZones(dev->ZoneIndexOf(other->start), 1));
    SMR_RETURN_IF_ERROR(dev->Write(other->start, bytes.data(), bytes.size()));
    if (current != nullptr && current->cond != ZoneCondition::kFull) {
      SMR_RETURN_IF_ERROR(dev->FinishZones(dev->ZoneIndexOf(current->start), 1));
    }
    return dev->Flush();
  }
  SMR_RETURN_IF_ERROR(dev->Write(current->wp, bytes.data(), bytes.size()));
  return dev->Flush();
}

Result<std::optional<StoreSuperblock>> ReadSuperblock(ZonedDevice* dev,
                                                      const std::vector<uint32_t>& reserved) {
  std::optional<StoreSuperblock> best;
  if (reserved.empty()) return best;
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(reserved.front(),
                                                    reserved.back() - reserved.front() + 1));
  std::string slot(kSuperblockSlot, '\0');
  for (uint32_t r : reserved) {
    const ZoneInfo& z = zones[r - reserved.front()];
    uint64_t end = z.start + SlotsIn(z) * kSuperblockSlot;
    if (!z.is_conventional()) {
      end = z.cond == ZoneCondition::kFull ? z.start + z.capacity : z.wp;
    }
    for (uint64_t off = z.start; off + kSuperblockSlot <= end; off += kSuperblockSlot) {
      SMR_RETURN_IF_ERROR(dev->Read(off, slot.data(), slot.size()));
      auto sb = DecodeSlot(slot.data());
      if (sb && (!best || sb->sequence > best->sequence)) best = std::move(sb);
    }
  }
  return best;
}

}  // namespace smr
