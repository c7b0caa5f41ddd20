// The one-line summary of where a placed plan runs, which `tandem sql --timing` prints as
// "Devices:" and benchmark reports keep per query: "cpu only", or "gpu 5, cpu 2, transitions 2"
// followed by the operators the GPU cannot run and why ("; on the CPU: Window (window
// functions)"), so that a report can say what fell back without an EXPLAIN. What happened at run
// time (parts run again after running out of memory, slices) is appended by the session.
#pragma once

#include <string>

#include "tandem/plan/logical_plan.h"

namespace tandem::placement {

std::string DevicesLine(const PlanNode& placed);

}  // namespace tandem::placement
