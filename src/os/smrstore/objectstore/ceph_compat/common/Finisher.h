// ceph_compat: common/Finisher.h — ContextQueue, the OSD shard queue that
// set_collection_commit_queue hands to a store: commit callbacks of that collection are
// queued to it instead of being run by the store.
#pragma once

#include <condition_variable>
#include <list>
#include <mutex>

#include "include/Context.h"

class ContextQueue {
 public:
  ContextQueue(std::mutex& mutex, std::condition_variable& cond) : mutex_(mutex), cond_(cond) {}
  void queue(std::list<Context*>& ls) {
    {
      std::lock_guard<std::mutex> l(q_mutex_);
      q_.splice(q_.end(), ls);
    }
    std::lock_guard<std::mutex> l(mutex_);
    cond_.notify_all();
  }
  void move_to(std::list<Context*>& ls) {
    std::lock_guard<std::mutex> l(q_mutex_);
    ls.splice(ls.end(), q_);
  }
  bool empty() {
    std::lock_guard<std::mutex> l(q_mutex_);
    return q_.empty();
  }

 private:
  std::list<Context*> q_;
  std::mutex q_mutex_;
  std::mutex& mutex_;
  std::condition_variable& cond_;
};
