// The conversion model of plan_model.h.
#include "plan_model.h"

#include <algorithm>
#include <cmath>

namespace smr::tool {

double QuantumMs(const RelocationCost& cost, uint64_t moved, double live_fraction) {
  const double m = static_cast<double>(moved);
  return cost.fixed_ms + m / live_fraction / cost.read_bytes_per_ms + m / cost.write_bytes_per_ms;
}

uint64_t QuantumFor(double rate, const PlanParams& p) {
  if (rate <= 0) return p.first_quantum;
  const double q = rate * p.bound_ms / 2;
  if (q >= static_cast<double>(p.max_quantum)) return p.max_quantum;
  return std::max(p.min_quantum, static_cast<uint64_t>(q));
}

double GapMs(double quantum_ms, const PlanParams& p) {
  const double u = std::clamp(p.load, 0.0, 0.99);
  return p.idle_gap_ms * (1 - u) + quantum_ms * u / (1 - u);
}

std::vector<Slice> DrainSlices(const RealmLoad& realm, const RelocationCost& cost,
                               const PlanParams& p, DrainState* state) {
  auto jitter = [&] {
    const uint64_t i = state->slices++;
    return cost.jitter_ms.empty() ? 0.0 : cost.jitter_ms[i % cost.jitter_ms.size()];
  };
  const double k = p.overwrite_bytes_per_ms > 0 && p.live_total_bytes > 0
                       ? p.overwrite_bytes_per_ms / static_cast<double>(p.live_total_bytes)
                       : 0;
  std::vector<Slice> out;
  const uint64_t written = std::max(realm.written_bytes, realm.live_bytes);
  if (written == 0) return out;
  const uint32_t zones = std::max<uint32_t>(1, realm.zones_in_use);
  const double f0 = static_cast<double>(realm.live_bytes) / static_cast<double>(written);
  const double zone_written = static_cast<double>(written) / zones;
  for (uint32_t z = 0; z < zones; ++z) {
    double walked = 0;  // of this zone's written bytes
    while (zone_written - walked > 0.5) {
      const double f = f0 * std::exp(-k * state->time_ms);
      const double rest = zone_written - walked;
      uint64_t q = QuantumFor(state->rate, p);
      if (p.record_bytes > 0) q = (q + p.record_bytes - 1) / p.record_bytes * p.record_bytes;
      // Walk until q bytes moved, or to the zone's end (all of it when nothing is live).
      const double walk = f > 0 ? std::min(static_cast<double>(q) / f, rest) : rest;
      const double moved = walk * f;
      const double ms = std::max(0.0, cost.fixed_ms + walk / cost.read_bytes_per_ms +
                                          moved / cost.write_bytes_per_ms + jitter());
      const auto m = static_cast<uint64_t>(std::llround(moved));
      if (m >= p.min_quantum && ms > 0) {
        const double r = static_cast<double>(m) / ms;
        state->rate = state->rate > 0 ? (1 - p.rate_alpha) * state->rate + p.rate_alpha * r : r;
      }
      out.push_back({m, ms});
      state->time_ms += ms + GapMs(ms, p);
      walked += walk;
    }
  }
  return out;
}

ConversionPlan PlanConversion(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p) {
  ConversionPlan plan;
  DrainState state;
  state.rate = p.initial_rate;
  double quantum_ms_sum = 0;
  for (const RealmLoad& r : realms) {
    RealmPlan rp;
    rp.realm = r.realm;
    rp.live_bytes = r.live_bytes;
    uint64_t moved = 0;
    double ms_sum = 0;
    for (const Slice& s : DrainSlices(r, cost, p, &state)) {
      ++rp.quanta;
      moved += s.moved;
      ms_sum += s.ms;
      rp.max_quantum_ms = std::max(rp.max_quantum_ms, s.ms);
      rp.drain_ms += s.ms + GapMs(s.ms, p);
    }
    rp.moved_bytes = moved;
    if (rp.quanta > 0) {
      rp.mean_quantum_bytes = static_cast<double>(moved) / static_cast<double>(rp.quanta);
      rp.mean_quantum_ms = ms_sum / static_cast<double>(rp.quanta);
    }
    rp.total_ms = rp.drain_ms + p.conversion_ms;
    state.time_ms += p.conversion_ms;
    plan.live_bytes += rp.live_bytes;
    plan.moved_bytes += rp.moved_bytes;
    plan.quanta += rp.quanta;
    plan.drain_ms += rp.drain_ms;
    plan.conversion_ms += p.conversion_ms;
    plan.total_ms += rp.total_ms;
    plan.added_latency_ms = std::max(plan.added_latency_ms, rp.max_quantum_ms);
    quantum_ms_sum += ms_sum;
    plan.realms.push_back(rp);
  }
  if (plan.quanta > 0) plan.mean_quantum_ms = quantum_ms_sum / static_cast<double>(plan.quanta);
  plan.bound_held = plan.added_latency_ms <= p.bound_ms;
  return plan;
}

PlanRange PlanConversionRange(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p) {
  PlanRange r;
  r.expected = PlanConversion(realms, cost, p);
  if (cost.jitter_ms.empty()) {
    r.fastest = r.slowest = r.expected;
    return r;
  }
  const auto [lo, hi] = std::minmax_element(cost.jitter_ms.begin(), cost.jitter_ms.end());
  RelocationCost fast = cost, slow = cost;
  fast.jitter_ms.clear();
  slow.jitter_ms.clear();
  fast.fixed_ms = std::max(0.0, cost.fixed_ms + *lo);
  slow.fixed_ms = std::max(0.0, cost.fixed_ms + *hi);
  r.fastest = PlanConversion(realms, fast, p);
  r.slowest = PlanConversion(realms, slow, p);
  // A faster slice can settle the store at smaller quanta, more of them: keep the order.
  if (r.fastest.total_ms > r.slowest.total_ms) std::swap(r.fastest, r.slowest);
  if (r.expected.total_ms < r.fastest.total_ms) r.fastest = r.expected;
  if (r.expected.total_ms > r.slowest.total_ms) r.slowest = r.expected;
  return r;
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
