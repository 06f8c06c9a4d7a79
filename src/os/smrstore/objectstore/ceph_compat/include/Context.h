// ceph_compat: include/Context.h — Ceph's completion callback (header-only in Ceph).
//
// A Context runs once: complete(r) calls finish(r) and deletes the object. ObjectStore
// transactions carry on_applied / on_commit Contexts (os/Transaction.h).
#pragma once

#include <list>
#include <memory>
#include <utility>

class Context {
 protected:
  virtual void finish(int r) = 0;

 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  virtual ~Context() = default;
  virtual void complete(int r) {
    finish(r);
    delete this;
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
