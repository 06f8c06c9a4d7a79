// ceph_compat: include/Context.h — Ceph's completion callback (header-only in Ceph).
//
// A Context runs once: complete(r) calls finish(r) and deletes the object. ObjectStore
// transactions carry on_applied / on_commit Contexts (os/Transaction.h).
// ABI: Pacific's vtable, slot for slot (an OSD hands us its own Contexts and we call them):
//   0 finish, 1 sync_finish, 2-3 ~Context, 4 complete, 5 sync_complete
// (read from ceph-osd's C_ContextsBase vtable; checked by qa/ceph/abi/check-abi.sh).
#pragma once

#include <list>
#include <memory>
#include <utility>

class Context {
 protected:
  virtual void finish(int r) = 0;
  // A variant of finish that is safe to call synchronously; true when it did the work.
  virtual bool sync_finish(int r) { return false; }

 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  virtual ~Context() {}
  virtual void complete(int r) {
    finish(r);
    delete this;
  }
  virtual bool sync_complete(int r) {
    if (sync_finish(r)) {
      delete this;
      return true;
    }
    return false;
  }
};

// Runs a list of Contexts in order as one.
class C_Contexts : public Context {
 public:
  std::list<Context*> contexts;

  // nullptr for an empty list, the only element for a list of one, else an aggregate.
  // Empties `ls` in every case.
  static Context* list_to_context(std::list<Context*>& ls) {
    if (ls.empty()) return nullptr;
    if (ls.size() == 1) {
      Context* c = ls.front();
      ls.clear();
      return c;
    }
    auto* c = new C_Contexts;
    c->contexts.swap(ls);
    return c;
  }

 protected:
  void finish(int r) override {
    for (Context* c : contexts) c->complete(r);
    contexts.clear();
  }
};

// A Context that runs a callable.
template <typename F>
class LambdaContext : public Context {
 public:
  explicit LambdaContext(F&& f) : f_(std::forward<F>(f)) {}

 protected:
  void finish(int r) override { f_(r); }

 private:
  F f_;
};
template <typename F>
LambdaContext<F>* make_lambda_context(F&& f) {
  return new LambdaContext<F>(std::forward<F>(f));
}
