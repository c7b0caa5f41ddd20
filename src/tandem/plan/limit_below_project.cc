// LimitBelowProjections (limit_below_project.h).
#include "tandem/plan/limit_below_project.h"

#include <vector>

#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {

PlanPtr LimitBelowProjections(const PlanPtr& plan) {
  if (!plan) return plan;
  std::vector<PlanPtr> children;
  bool changed = false;
  for (const PlanPtr& c : plan->children) {
    children.push_back(LimitBelowProjections(c));
    changed = changed || children.back() != c;
  }
  PlanPtr node = changed ? WithChildren(*plan, std::move(children)) : plan;
  if (node->kind != PlanKind::kLimit || node->children.size() != 1) return node;
  // The projections under the Limit, top first, down to what they project.
  std::vector<PlanPtr> projects;
  PlanPtr below = node->children[0];
  while (below && below->kind == PlanKind::kProject && below->children.size() == 1) {
    projects.push_back(below);
    below = below->children[0];
  }
  if (projects.empty() || !below || below->kind != PlanKind::kSort) return node;
  PlanPtr limit = WithChildren(*node, {below});
  limit->schema = below->schema;
  PlanPtr top = limit;
  for (auto it = projects.rbegin(); it != projects.rend(); ++it) top = WithChildren(**it, {top});
  return top;
}

}  // namespace tandem::plan
