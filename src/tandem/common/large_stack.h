// Deep statements need deep stacks: parsing, binding and planning recurse over trees whose depth
// follows the SQL (a chain of 10,000 `+` is 10,000 levels). Statements therefore run on a thread
// whose stack is sized for them (RunOnLargeStack), and the binder refuses nesting past the
// documented tandem.sql.maxExpressionDepth; StackRemaining() lets recursive code check as well.
#pragma once

#include <cstddef>
#include <functional>

namespace tandem {

// Runs fn on the calling thread when its stack has at least `bytes`, else on a new thread with a
// stack of `bytes` (joined before returning). Stack memory is reserved, not committed: pages are
// used only as deep as the recursion goes.
void RunOnLargeStack(size_t bytes, const std::function<void()>& fn);

// Bytes left on the calling thread's stack (a large number when it cannot be told).
size_t StackRemaining();

}  // namespace tandem
