#include "objectstore/testing/smrstore_introspect.h"

#include "objectstore/smrstore_internal.h"

smr::Store* SMRStoreIntrospect::Engine(SMRStore& store) { return store.impl_->engine.get(); }
