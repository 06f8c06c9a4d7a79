// The conversion model of plan_model.h.
#include "plan_model.h"

#include <algorithm>
#include <cmath>

namespace smr::tool {

double QuantumMs(const RelocationCost& cost, uint64_t live, double live_fraction) {
  const double moved = static_cast<double>(live);
  return cost.fixed_ms + moved / live_fraction / cost.read_bytes_per_ms +
         moved / cost.write_bytes_per_ms;
}

uint64_t QuantumBytes(const RelocationCost& cost, double live_fraction, const PlanParams& p) {
  // The store's rate x B/2 settles where a quantum takes B/2: fixed + q * per_byte = B/2.
  const double per_byte =
      1.0 / (live_fraction * cost.read_bytes_per_ms) + 1.0 / cost.write_bytes_per_ms;
  const double room_ms = p.bound_ms / 2 - cost.fixed_ms;
  const double q = room_ms > 0 ? room_ms / per_byte : 0;
  if (q >= static_cast<double>(p.max_quantum)) return p.max_quantum;
  return std::max(p.min_quantum, static_cast<uint64_t>(q));
}

double GapMs(double quantum_ms, const PlanParams& p) {
  if (p.load > 0) {
    const double u = std::min(p.load, 0.99);
    return quantum_ms * u / (1 - u);
  }
  return p.gap_ms;
}

ConversionPlan PlanConversion(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p) {
  ConversionPlan plan;
  for (const RealmLoad& r : realms) {
    RealmPlan rp;
    rp.realm = r.realm;
    rp.live_bytes = r.live_bytes;
    const uint64_t written = std::max(r.written_bytes, r.live_bytes);
    if (written > 0) {
      const double n = std::max<uint32_t>(1, r.zones_in_use);
      const double zone_written = static_cast<double>(written) / n;
      if (r.live_bytes == 0) {
        // Nothing live: one slice per zone in use walks it to its end.
        rp.quantum_ms = cost.fixed_ms + zone_written / cost.read_bytes_per_ms;
        rp.quanta = static_cast<uint64_t>(n);
        rp.drain_ms = n * (rp.quantum_ms + GapMs(rp.quantum_ms, p));
        plan.added_latency_ms = std::max(plan.added_latency_ms, rp.quantum_ms);
      } else {
        const double f = static_cast<double>(r.live_bytes) / static_cast<double>(written);
        rp.quantum_bytes = QuantumBytes(cost, f, p);
        const double q = static_cast<double>(rp.quantum_bytes);
        const double zone_live = static_cast<double>(r.live_bytes) / n;
        const double per_zone = std::max(1.0, std::ceil(zone_live / q));
        const double rest = zone_live - (per_zone - 1) * q;  // the zone's last quantum
        const double full_ms = QuantumMs(cost, rp.quantum_bytes, f);
        const double last_ms = QuantumMs(cost, static_cast<uint64_t>(std::llround(rest)), f);
        rp.quantum_ms = per_zone > 1 ? full_ms : last_ms;
        rp.quanta = static_cast<uint64_t>(n * per_zone);
        rp.drain_ms = n * ((per_zone - 1) * (full_ms + GapMs(full_ms, p)) + last_ms +
                           GapMs(last_ms, p));
        plan.added_latency_ms = std::max(plan.added_latency_ms, rp.quantum_ms);
      }
    }
    rp.total_ms = rp.drain_ms + p.conversion_ms;
    plan.live_bytes += rp.live_bytes;
    plan.quanta += rp.quanta;
    plan.drain_ms += rp.drain_ms;
    plan.conversion_ms += p.conversion_ms;
    plan.total_ms += rp.total_ms;
    plan.realms.push_back(rp);
  }
  plan.bound_held = plan.added_latency_ms <= p.bound_ms;
  return plan;
}

RealmLoad AssumedRealm(uint32_t realm, uint64_t capacity, uint32_t zones, double live_fraction) {
  RealmLoad r;
  r.realm = realm;
  r.written_bytes = capacity;
  r.live_bytes = static_cast<uint64_t>(std::llround(static_cast<double>(capacity) *
                                                    std::clamp(live_fraction, 0.0, 1.0)));
  r.zones_in_use = zones;
  return r;
}

}  // namespace smr::tool
