// ceph_compat: common/Finisher.h — ContextQueue, the OSD shard queue that
// set_collection_commit_queue hands to a store: commit callbacks of that collection are
// queued to it instead of being run by the store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>

#include "include/Context.h"

// ABI: Pacific's layout exactly (ceph-osd-dbg: q 0, q_mutex 24, mutex& 64, cond& 72,
// q_empty 80, sizeof 88): the OSD's shard threads read q_empty without the lock (its inline
// empty()) and swap q under q_mutex; queue() below is Pacific's inline one, so callbacks we
// queue wake the shard that waits on `cond` under `mutex`.
class ContextQueue {
 public:
  ContextQueue(std::mutex& mutex, std::condition_variable& cond) : mutex(mutex), cond(cond) {}
  void queue(std::list<Context*>& ls) {
    bool was_empty = false;
    {
      std::scoped_lock l(q_mutex);
      if (q.empty()) {
        q.swap(ls);
        was_empty = true;
      } else {
        q.insert(q.end(), ls.begin(), ls.end());
      }
      q_empty = q.empty();
    }
    if (was_empty) {
      std::scoped_lock l1(mutex);
      cond.notify_all();
    }
    ls.clear();
  }
  void move_to(std::list<Context*>& ls) {
    ls.clear();
    std::scoped_lock l(q_mutex);
    if (!q.empty()) q.swap(ls);
    q_empty = true;
  }
  bool empty() { return q_empty; }

 private:
  std::list<Context*> q;
  std::mutex q_mutex;
  std::mutex& mutex;
  std::condition_variable& cond;
  std::atomic_bool q_empty = {true};
};
