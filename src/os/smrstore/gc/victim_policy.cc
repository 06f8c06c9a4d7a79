// Victim policies (see victim_policy.h for the contract and the formulas).
#include "gc/victim_policy.h"

#include <algorithm>
#include <cmath>

namespace smr {

namespace {

constexpr double kLifetimeBenefitFloor = 0.05;

// Fraction of the zone's written bytes still live (0 when nothing was written).
double Utilization(const ZoneCandidate& z) {
  if (z.written == 0) return 0.0;
  return std::min(1.0, static_cast<double>(z.live) / static_cast<double>(z.written));
}

double StreamRate(const ZoneCandidate& z, const PolicyParams& p) {
  if (z.stream >= p.death_rate_per_age.size()) return 0.0;
  const double r = p.death_rate_per_age[z.stream];
  return std::isfinite(r) && r > 0 ? r : 0.0;
}

}  // namespace

const char* VictimPolicyName(VictimPolicy p) {
  switch (p) {
    case VictimPolicy::kGreedy:
      return "greedy";
    case VictimPolicy::kCostBenefit:
      return "cost-benefit";
    case VictimPolicy::kLifetime:
      return "lifetime";
  }
  return "unknown";
}

Result<VictimPolicy> ParseVictimPolicy(const std::string& name) {
  for (VictimPolicy p :
       {VictimPolicy::kGreedy, VictimPolicy::kCostBenefit, VictimPolicy::kLifetime}) {
    if (name == VictimPolicyName(p)) return p;
  }
  return Status::InvalidArgument("unknown GC policy '" + name +
                                 "' (greedy, cost-benefit or lifetime)");
}

double ExpectedUtilization(const ZoneCandidate& z, const PolicyParams& params) {
  const double horizon = std::isfinite(params.horizon) && params.horizon > 0 ? params.horizon : 0;
  return Utilization(z) * std::exp(-StreamRate(z, params) * kLookaheadAges * horizon);
}

double VictimScore(VictimPolicy policy, const ZoneCandidate& z, const PolicyParams& params) {
  if (z.written == 0 || z.live >= z.written) return 0.0;
  switch (policy) {
    case VictimPolicy::kGreedy:
      return static_cast<double>(z.written - z.live);
    case VictimPolicy::kCostBenefit: {
      const double u = Utilization(z);
      return (1.0 - u) * static_cast<double>(z.age) / (1.0 + u);
    }
    case VictimPolicy::kLifetime: {
      const double u = Utilization(z);
      const double uh = ExpectedUtilization(z, params);
      // Benefit: the free space cleaning creates now (1 - u), less the space the relocated
      // bytes that die within the horizon turn dead again in the GC zones (u - uh); floored
      // at a fraction of (1 - u) so zones that "should wait" still rank among themselves.
      const double benefit = std::max(1.0 - u - (u - uh), kLifetimeBenefitFloor * (1.0 - u));
      return benefit * (static_cast<double>(z.age) + 1.0) / (1.0 + u);
    }
  }
  return 0.0;
}

std::vector<size_t> RankVictims(VictimPolicy policy, const std::vector<ZoneCandidate>& zones,
                                const PolicyParams& params) {
  struct Scored {
    double score;
    size_t index;
  };
  std::vector<Scored> scored;
  scored.reserve(zones.size());
  for (size_t i = 0; i < zones.size(); ++i) {
    const ZoneCandidate& z = zones[i];
    if (z.written == 0 || z.live >= z.written) continue;
    double s = VictimScore(policy, z, params);
    if (std::isnan(s)) s = -HUGE_VAL;
    scored.push_back({s, i});
  }
  std::sort(scored.begin(), scored.end(), [&](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    const ZoneCandidate& za = zones[a.index];
    const ZoneCandidate& zb = zones[b.index];
    if (za.drive != zb.drive) return za.drive < zb.drive;
    if (za.zone != zb.zone) return za.zone < zb.zone;
    return a.index < b.index;
  });
  std::vector<size_t> out;
  out.reserve(scored.size());
  for (const Scored& s : scored) out.push_back(s.index);
  return out;
}

}  // namespace smr
