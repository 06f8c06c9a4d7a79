// MetadataJournal: everything RocksDB holds, also in the zones (format/journal.h), and its
// checkpoints (store/metadata_journal.cc).
//
// Contract
//   So that rebuild-meta (store/rebuild.cc) can make the metadata database again from the
//   drives alone, every commit that changes journaled metadata (collections, onodes, xattrs,
//   omap, the nid index, store values) carries one journal record: its metadata writes as
//   raw key-value ops, in the same commit group, written and flushed with the group's data
//   records before RocksDB commits the batch. A checkpoint writes the whole journaled
//   keyspace as chunk records, then a journal record marking it complete; the journal
//   zones sealed before it began are then freed. For:
//   - the commit pipeline (WriteAndCommit): JournalBatch places the group's record (with the
//     pending markers, the zone-open notes, counters and ids) into its writes before they
//     are written; JournalCommitted settles it once the batch committed or failed;
//     SetLastGroupZone tells where the group left a drive's head. CommitGroup bounds a
//     group's journal ops by JournalOpsLimit (LastWriteOfEachKey, JournalOpsBytes).
//   - Open (store.cc): SetWithData (OpenDrives), RefusePreJournalStore, LoadJournalState,
//     the mount marker (JournalAtMount: QueueMarker, WriteMarkersAlone, has_checkpoint,
//     Checkpoint), DecodeJournalPins (LoadZonesAndCounters).
//   - the commit loop (MaybeCheckpoint after each group and each RunGc victim), GC
//     (PickVictim: Checkpoint to unpin zones) and hybrid drains (NextDrainZone: Checkpoint
//     to free a realm's journal zones).
//   - rebuild-meta: EncodeJournalPins (the pins of the records its replay used).
//   Placement: with journal_with_data (StoreOptions; by default on rotational drives) the
//   record follows the group's data in the zone the group writes last (LastDataZone; a group
//   without data: last_group_zone), so it costs no seek on a drive with a head; that zone is
//   pinned (ZoneManager::PinJournal, persisted as kValueJournalPins in the same commit) and
//   GC and mount never reset it until the next checkpoint makes its journal records
//   obsolete. Otherwise, when that zone has no room, and for a checkpoint's own commits,
//   the record goes to the journal stream's zones. A read-write mount adds a mount marker
//   (mount count, committed sequence number) to its first journal record, which voids
//   records an earlier mount wrote but never committed.
//
// Invariants
//   - has_checkpoint_, checkpoint_id_, checkpoint_seq_, last_checkpoint_bytes_ are the last
//     complete checkpoint, as committed in kValueJournal.
//   - journal_bytes_ counts the journal record bytes committed since that checkpoint;
//     journal_bytes_pending_ those placed in the group being committed (0 between groups).
//   - journal_markers_ go out with the next journal record and are dropped only when it
//     commits; journal_markers_now_ makes that record even without metadata ops.
//   - The zones kept for the journal alone (ZoneManager::SetJournalReserve) are one plus the
//     last checkpoint's zones, per drive (SizeJournalReserve).
//   - A checkpoint commits its obsolete journal zones free before it resets them
//     (ReleaseJournalZones): a crash in between leaves free zones holding bytes, which
//     mount resets, never committed metadata naming bytes a reset drive lost.
//
// Thread safety
//   The commit thread owns the journal (and Open, before that thread starts). Every field
//   is guarded by the store's group_mu (group_mu_ names StoreCore::group_mu), which the
//   commit thread holds while it writes and commits. The entry points called with it held
//   (JournalBatch, JournalCommitted, SetLastGroupZone, QueueMarker, WriteMarkersAlone,
//   has_checkpoint, Checkpoint) begin with group_mu_.AssertHeld(). SetWithData and
//   LoadJournalState (Open, no other thread yet) take it for the analysis.
//   MaybeCheckpoint runs on the commit thread without it: it decides whether one is due
//   from fields only that thread writes (CheckpointDue, outside the analysis), then takes
//   group_mu for the checkpoint. JournalOpsLimit, RefusePreJournalStore and the pin codec
//   read no journal state (any thread). Counters go under counters_mu, `fatal` under mu.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "format/journal.h"
#include "meta/meta_store.h"
#include "store/store.h"
#include "zone/zone_manager.h"

namespace smr {

struct StoreCore;
struct GroupWrites;

class MetadataJournal {
 public:
  // `core`: the store's shared parts; through core.peers it calls the pipeline
  // (WriteAndCommit) and GC (its lifetime bytes).
  explicit MetadataJournal(StoreCore& core);
  MetadataJournal(const MetadataJournal&) = delete;
  MetadataJournal& operator=(const MetadataJournal&) = delete;

  // --- Mount (Open's steps, before the commit thread starts).
  // StoreOptions::journal_with_data as resolved at mount (unset: any drive rotational).
  void SetWithData(bool on) SMR_EXCLUDES(group_mu_);
  // kNotSupported for a store made before the metadata journal (no checkpoint, yet
  // collections or objects committed); Open calls it before anything is written.
  Status RefusePreJournalStore() const;
  // Reads the last checkpoint (kValueJournal), sizes the journal's reserve to it and counts
  // the journal bytes written since. Errors: the database's; kCorruption for a malformed
  // value.
  Status LoadJournalState() SMR_EXCLUDES(group_mu_);
  // Queues a marker (the mount's) for the next journal record (group_mu held).
  void QueueMarker(const JournalOp& op);
  // The next commit writes a journal record for the markers alone (group_mu held).
  void WriteMarkersAlone();
  // Whether the store has a complete checkpoint (group_mu held).
  bool has_checkpoint() const;
  // Journal pins as persisted (kValueJournalPins), to decode at mount and encode in a commit
  // (and in rebuild-meta's).
  static std::string EncodeJournalPins(const std::vector<ZoneAddress>& pins);
  static Result<std::vector<ZoneAddress>> DecodeJournalPins(const std::string& v);

  // --- The commit pipeline (WriteAndCommit, CommitGroup).
  // The most journal op bytes one commit group may carry: its journal record must fit in
  // one zone (of the smallest capacity) beside the zone's footer, with room for the
  // markers JournalBatch adds. CommitGroup ends a group before the transaction that would
  // pass it, and fails a transaction that passes it alone (kInvalidArgument).
  uint64_t JournalOpsLimit() const;
  // Places the journal record of `batch` (and pending markers) into `writes`; no-op when
  // the journal is off or there is nothing to journal. WriteAndCommit calls it (group_mu
  // held). Errors: placement errors.
  Status JournalBatch(MetaStore::Batch* batch, GroupWrites* writes);
  // After the group's commit (`ok`) or its failure: the record's bytes counted, the markers
  // it carried dropped (group_mu held).
  void JournalCommitted(bool ok);
  // The zone the last committed group wrote last (where a drive's head is): a group without
  // data puts its journal record there (group_mu held).
  void SetLastGroupZone(const ZoneAddress& z);

  // --- Checkpoints.
  // Writes a complete checkpoint at once and frees the journal zones it makes obsolete
  // (group_mu held); a stepped one under way is dropped. Errors: the metadata walk's,
  // placement and commit errors, a failed reset.
  Status Checkpoint();
  // For GC, which found only pinned zones worth cleaning (group_mu held): finishes the
  // stepped checkpoint under way, which unpins the zones pinned when it began, or writes
  // one at once (Checkpoint) when none is.
  Status CheckpointForPins();
  // A checkpoint when the journal has grown enough (after a commit group; commit thread,
  // group_mu not held: taken for the checkpoint). Takes one when the journal since the last
  // one is large, or (with `for_pins`) when many data zones are pinned by journal records.
  // With StoreOptions::checkpoint_step (not 0) a checkpoint is taken in steps, one per
  // call, each walking about that many bytes of the keyspace into chunk records and
  // committing them, while commit groups go on between the steps: a fuzzy checkpoint,
  // made exact by the journal records written since it began (its sequence number), which
  // a rebuild replays on top of it (store/rebuild.cc PlanReplay). Those records' pins stay.
  void MaybeCheckpoint(bool for_pins = true) SMR_EXCLUDES(group_mu_);

 private:
  // Checkpoint's state, shared by its steps (commit thread, commits paused as Checkpoint).
  struct CheckpointState {
    uint64_t id = 0;      // the checkpoint's id
    uint64_t at_seq = 0;  // its sequence number
    uint64_t chunks = 0;  // chunk records placed so far
    uint64_t bytes = 0;   // their record bytes
    std::vector<std::pair<std::string, std::string>> kvs;  // the chunk being filled
    uint64_t kv_bytes = 0;
    std::unique_ptr<GroupWrites> group;  // chunks placed and not yet committed
    uint64_t group_bytes = 0;
    std::string next_key;  // where the walk resumes (the key after the last one walked)
    std::vector<ZoneAddress> obsolete;  // journal zones sealed when it began
    std::set<ZoneAddress> pins_at_begin;  // data zones pinned when it began
    std::set<ZoneAddress> repinned;       // ... and given a journal record since
    uint64_t journal_bytes_since = 0;     // journal record bytes committed since it began
  };
  // A checkpoint's start: its id and sequence number, the journal zones it will free, the
  // pins it may clear.
  std::unique_ptr<CheckpointState> BeginCheckpoint() SMR_REQUIRES(group_mu_);
  // Walks about `budget` bytes of keys from c->next_key into chunk records and commits
  // them. Returns whether the keys ended.
  Result<bool> CheckpointStep(CheckpointState* c, uint64_t budget) SMR_REQUIRES(group_mu_);
  // The completing commit, then the obsolete journal zones freed.
  Status FinishCheckpoint(CheckpointState* c) SMR_REQUIRES(group_mu_);
  // Writes and commits the chunks placed in c->group, if any, and starts a new group.
  Status CheckpointFlushGroup(CheckpointState* c) SMR_REQUIRES(group_mu_);
  // Places the chunk being filled (if any) as one kCheckpoint record in the journal
  // stream; flushes the group at every ~64 MiB. Errors: placement and commit errors.
  Status CheckpointEmitChunk(CheckpointState* c) SMR_REQUIRES(group_mu_);
  // The checkpoint's completing commit: the kOpCheckpointDone marker and the zone-open
  // notes of every data zone in use, the journal state and cleared pins, in a journal
  // zone; then the in-memory state (checkpoint id, reserve, counters).
  Status CheckpointComplete(CheckpointState* c) SMR_REQUIRES(group_mu_);
  // Frees the journal zones the checkpoint made obsolete: committed free (synced), then
  // reset; a failed reset stops writes (`fatal`, under mu) and is returned.
  Status ReleaseJournalZones(const std::vector<ZoneAddress>& obsolete)
      SMR_REQUIRES(group_mu_);
  // Sizes the zones kept for the journal alone to the last checkpoint.
  void SizeJournalReserve() SMR_REQUIRES(group_mu_);
  // MaybeCheckpoint's test. Commit thread, group_mu not held: it reads fields that only
  // this thread writes (each write with group_mu held), which the analysis cannot know.
  bool CheckpointDue(bool for_pins) const SMR_NO_THREAD_SAFETY_ANALYSIS;

  StoreCore& core_;
  Mutex& group_mu_;           // core_.group_mu

  bool has_checkpoint_ SMR_GUARDED_BY(group_mu_) = false;
  uint64_t checkpoint_id_ SMR_GUARDED_BY(group_mu_) = 0;
  uint64_t checkpoint_seq_ SMR_GUARDED_BY(group_mu_) = 0;
  uint64_t last_checkpoint_bytes_ SMR_GUARDED_BY(group_mu_) = 0;
  // Journal record bytes since the last checkpoint.
  uint64_t journal_bytes_ SMR_GUARDED_BY(group_mu_) = 0;
  // Placed in the group being committed.
  uint64_t journal_bytes_pending_ SMR_GUARDED_BY(group_mu_) = 0;
  // Written with the next journal record.
  std::vector<JournalOp> journal_markers_ SMR_GUARDED_BY(group_mu_);
  // Write a record for the markers alone (mount).
  bool journal_markers_now_ SMR_GUARDED_BY(group_mu_) = false;
  // StoreOptions::journal_with_data as resolved at mount (SetWithData).
  bool journal_with_data_ SMR_GUARDED_BY(group_mu_) = false;
  // Checkpoint's own commits: the record goes to a journal zone whatever the placement.
  bool journal_own_zones_now_ SMR_GUARDED_BY(group_mu_) = false;
  // The zone the last committed group wrote last (SetLastGroupZone).
  std::optional<ZoneAddress> last_group_zone_ SMR_GUARDED_BY(group_mu_);
  // The stepped checkpoint under way (MaybeCheckpoint with checkpoint_step), if any.
  std::unique_ptr<CheckpointState> stepping_ SMR_GUARDED_BY(group_mu_);
};

// The data zone (not a journal zone) the group's writes reach last, if any — the one whose
// buffer it created last, as WriteGroup writes a drive's zones in that order: where the
// drive's head ends up, and where the group's journal record goes (journal_with_data).
std::optional<ZoneAddress> LastDataZone(const GroupWrites& writes, const ZoneManager& zones);
// The indexes of `ops` a journal record carries: every marker, and of the puts and deletes
// only the last of each key.
std::vector<size_t> LastWriteOfEachKey(const std::vector<JournalOp>& ops);
// The bytes AppendJournalOp gives `ops` (all of them, or only those LastWriteOfEachKey keeps).
uint64_t JournalOpsBytes(const std::vector<JournalOp>& ops, bool last_write_only);

}  // namespace smr
