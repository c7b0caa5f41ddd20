// Projection pruning (see prune_columns.h). Prune(node, required) returns a plan whose output
// is an ordered subset `kept` of the node's columns that contains `required`; parents remap
// their column references through it.
#include "tandem/plan/prune_columns.h"

#include <algorithm>

#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

using Columns = std::vector<int>;  // sorted, distinct

void AddColumns(const Expr& e, Columns* cols, int offset = 0, int begin = 0, int end = 1 << 30) {
  for (int c : ColumnsOf(e)) {
    if (c >= begin && c < end) cols->push_back(c - offset);
  }
}

void Normalize(Columns* cols) {
  std::sort(cols->begin(), cols->end());
  cols->erase(std::unique(cols->begin(), cols->end()), cols->end());
}

// A join input that still carries columns the join does not need (a filter below kept the
// columns its predicate reads) gets a projection of just the needed ones, so that the join never
// gathers them into its output. The projection of column references copies nothing.
PlanPtr NarrowTo(PlanPtr input, Columns need, Columns* kept) {
  Normalize(&need);
  if (need.empty() || need.size() == kept->size()) return input;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c : need) {
    const int pos =
        static_cast<int>(std::lower_bound(kept->begin(), kept->end(), c) - kept->begin());
    if (pos >= static_cast<int>(kept->size()) || (*kept)[pos] != c) return input;  // not kept
    const Field& f = input->schema.field(pos);
    exprs.push_back(MakeColumnRef(pos, f.type, f.nullable, f.name));
    names.push_back(f.name);
  }
  const double rows = input->estimated_rows;
  PlanPtr project = MakeProject(std::move(input), std::move(exprs), std::move(names));
  project->estimated_rows = rows;
  *kept = std::move(need);
  return project;
}

// old column -> position in `kept` (-1 when dropped).
std::vector<int> MappingOf(const Columns& kept, int width) {
  std::vector<int> m(static_cast<size_t>(width), -1);
  for (size_t i = 0; i < kept.size(); ++i) m[kept[i]] = static_cast<int>(i);
  return m;
}

// The cheapest column to read when a parent needs rows but no values.
int NarrowestColumn(const Schema& s) {
  int best = 0;
  int best_width = 1 << 30;
  for (int i = 0; i < s.num_fields(); ++i) {
    const int w = s.field(i).type.is_string_like() ? 64 : std::max(1, s.field(i).type.byte_width());
    if (w < best_width) {
      best = i;
      best_width = w;
    }
  }
  return best;
}

bool IsIdentityProject(const PlanNode& n) {
  if (n.kind != PlanKind::kProject) return false;
  if (static_cast<int>(n.exprs.size()) != n.children[0]->schema.num_fields()) return false;
  for (size_t i = 0; i < n.exprs.size(); ++i) {
    const Expr& e = *n.exprs[i];
    if (e.kind != ExprKind::kColumnRef || e.outer_depth != 0 ||
        e.column_index != static_cast<int>(i)) {
      return false;
    }
  }
  return true;
}

// One walk over a plan; `kept_of`, when set, records the columns each node of the input plan
// keeps.
struct Pruner {
  KeptColumns* kept_of = nullptr;

  // PruneNode, recording what it kept.
  PlanPtr Prune(const PlanPtr& node, Columns required, Columns* kept);
  PlanPtr PruneNode(const PlanPtr& node, Columns required, Columns* kept);
  PlanPtr PruneExact(const PlanPtr& node, const Columns& required);
};

// Prunes to exactly `required` (adding a projection when the child keeps more).
PlanPtr Pruner::PruneExact(const PlanPtr& node, const Columns& required) {
  Columns kept;
  PlanPtr p = Prune(node, required, &kept);
  if (kept == required) return p;
  const auto m = MappingOf(kept, node->schema.num_fields());
  Columns cols;
  for (int c : required) cols.push_back(m[c]);
  return ProjectColumns(p, cols);
}

PlanPtr Pruner::Prune(const PlanPtr& node, Columns required, Columns* kept) {
  PlanPtr p = PruneNode(node, std::move(required), kept);
  if (kept_of) {  // a subplan reached twice keeps what either path needs
    Columns& k = (*kept_of)[node.get()];
    k.insert(k.end(), kept->begin(), kept->end());
    Normalize(&k);
  }
  return p;
}

PlanPtr Pruner::PruneNode(const PlanPtr& node, Columns required, Columns* kept) {
  Normalize(&required);
  const int width = node->schema.num_fields();
  switch (node->kind) {
    case PlanKind::kScan: {
      if (required.empty() && width > 0) required.push_back(NarrowestColumn(node->schema));
      auto n = std::make_shared<PlanNode>(*node);
      n->scan_columns.clear();
      n->schema.fields.clear();
      for (int c : required) {
        n->scan_columns.push_back(node->scan_columns[c]);
        n->schema.fields.push_back(node->schema.field(c));
      }
      *kept = required;
      return n;
    }
    case PlanKind::kFilter: {
      Columns need = required;
      AddColumns(*node->predicate, &need);
      Columns ck;
      auto child = Prune(node->children[0], need, &ck);
      auto n = WithChildren(*node, {child});
      n->predicate = RemapColumns(node->predicate, MappingOf(ck, width));
      n->schema = child->schema;
      *kept = ck;
      return n;
    }
    case PlanKind::kProject: {
      Columns keep = required;
      if (keep.empty() && width > 0) {  // SELECT FROM t has no column at all
        keep.push_back(0);
        for (int i = 0; i < width; ++i) {
          if (node->exprs[i]->kind == ExprKind::kColumnRef) {
            keep[0] = i;
            break;
          }
        }
      }
      Columns need;
      for (int i : keep) AddColumns(*node->exprs[i], &need);
      Columns ck;
      const PlanPtr& in = node->children[0];
      auto child = Prune(in, need, &ck);
      const auto m = MappingOf(ck, in->schema.num_fields());
      auto n = WithChildren(*node, {child});
      n->exprs.clear();
      n->schema.fields.clear();
      for (int i : keep) {
        n->exprs.push_back(RemapColumns(node->exprs[i], m));
        n->schema.fields.push_back(node->schema.field(i));
      }
      *kept = keep;
      if (IsIdentityProject(*n)) return child;  // names of inner columns do not matter
      return n;
    }
    case PlanKind::kAggregate: {
      const int nk = static_cast<int>(node->group_keys.size());
      const int na = static_cast<int>(node->aggregates.size());
      std::vector<bool> keep_agg(static_cast<size_t>(na), false);
      bool any = false;
      for (int c : required) {
        if (c >= nk && c < nk + na) keep_agg[c - nk] = any = true;
      }
      if (!any && nk == 0 && na > 0) keep_agg[0] = true;
      Columns need;
      for (const auto& k : node->group_keys) AddColumns(*k, &need);
      for (int i = 0; i < na; ++i) {
        if (!keep_agg[i]) continue;
        if (node->aggregates[i].arg) AddColumns(*node->aggregates[i].arg, &need);
        if (node->aggregates[i].filter) AddColumns(*node->aggregates[i].filter, &need);
      }
      Columns ck;
      const PlanPtr& in = node->children[0];
      auto child = Prune(in, need, &ck);
      const auto m = MappingOf(ck, in->schema.num_fields());
      auto n = WithChildren(*node, {child});
      n->aggregates.clear();
      n->schema.fields.clear();
      kept->clear();
      for (int i = 0; i < nk; ++i) {
        n->group_keys[i] = RemapColumns(node->group_keys[i], m);
        n->schema.fields.push_back(node->schema.field(i));
        kept->push_back(i);
      }
      for (int i = 0; i < na; ++i) {
        if (!keep_agg[i]) continue;
        AggregateCall a = node->aggregates[i];
        a.arg = RemapColumns(a.arg, m);
        a.filter = RemapColumns(a.filter, m);
        n->aggregates.push_back(std::move(a));
        n->schema.fields.push_back(node->schema.field(nk + i));
        kept->push_back(nk + i);
      }
      if (!node->grouping_sets.empty()) {
        n->schema.fields.push_back(node->schema.fields.back());
        kept->push_back(width - 1);
      }
      return n;
    }
    case PlanKind::kJoin: {
      const PlanPtr& l = node->children[0];
      const PlanPtr& r = node->children[1];
      const int nl = l->schema.num_fields();
      const int nr = r->schema.num_fields();
      const bool mark = node->join_type == JoinType::kMark;
      // A mark join whose mark nobody reads is its left input (it keeps every left row once).
      if (mark && (required.empty() || required.back() < nl)) return Prune(l, required, kept);
      Columns need_l, need_r;
      for (int c : required) {
        if (c < nl) {
          need_l.push_back(c);
        } else if (!mark) {
          need_r.push_back(c - nl);
        }
      }
      for (const auto& k : node->left_keys) AddColumns(*k, &need_l);
      for (const auto& k : node->right_keys) AddColumns(*k, &need_r);
      if (node->condition) {
        AddColumns(*node->condition, &need_l, 0, 0, nl);
        AddColumns(*node->condition, &need_r, nl, nl);
      }
      Columns kl, kr;
      auto lp = NarrowTo(Prune(l, need_l, &kl), need_l, &kl);
      auto rp = NarrowTo(Prune(r, need_r, &kr), need_r, &kr);
      const auto ml = MappingOf(kl, nl);
      const auto mr = MappingOf(kr, nr);
      std::vector<int> both(static_cast<size_t>(nl + nr), -1);
      for (int i = 0; i < nl; ++i) both[i] = ml[i];
      for (int i = 0; i < nr; ++i)
        both[nl + i] = mr[i] < 0 ? -1 : static_cast<int>(kl.size()) + mr[i];
      std::vector<ExprPtr> lk, rk;
      for (const auto& k : node->left_keys) lk.push_back(RemapColumns(k, ml));
      for (const auto& k : node->right_keys) rk.push_back(RemapColumns(k, mr));
      auto n = MakeJoin(lp, rp, node->join_type, lk, rk, RemapColumns(node->condition, both),
                        node->null_aware);
      n->estimated_rows = node->estimated_rows;
      *kept = kl;
      if (mark) {
        kept->push_back(nl);
      } else if (node->join_type != JoinType::kSemi && node->join_type != JoinType::kAnti) {
        for (int c : kr) kept->push_back(nl + c);
      }
      return n;
    }
    case PlanKind::kSort: {
      Columns need = required;
      for (const auto& k : node->sort_keys) AddColumns(*k.expr, &need);
      Columns ck;
      auto child = Prune(node->children[0], need, &ck);
      auto n = WithChildren(*node, {child});
      const auto m = MappingOf(ck, width);
      for (auto& k : n->sort_keys) k.expr = RemapColumns(k.expr, m);
      n->schema = child->schema;
      *kept = ck;
      return n;
    }
    case PlanKind::kLimit: {
      Columns ck;
      auto child = Prune(node->children[0], required, &ck);
      auto n = WithChildren(*node, {child});
      n->schema = child->schema;
      *kept = ck;
      return n;
    }
    case PlanKind::kWindow: {
      const PlanPtr& in = node->children[0];
      const int w = in->schema.num_fields();
      Columns need;
      std::vector<int> keep_win;
      for (int c : required) {
        if (c < w) {
          need.push_back(c);
        } else {
          keep_win.push_back(c - w);
        }
      }
      for (int i : keep_win) {
        const WindowCall& wc = node->windows[i];
        for (const auto& e : wc.args) AddColumns(*e, &need);
        for (const auto& e : wc.partition_by) AddColumns(*e, &need);
        for (const auto& k : wc.order_by) AddColumns(*k.expr, &need);
      }
      Columns ck;
      auto child = Prune(in, need, &ck);
      if (keep_win.empty()) {
        *kept = ck;
        return child;
      }
      const auto m = MappingOf(ck, w);
      auto n = WithChildren(*node, {child});
      n->windows.clear();
      n->schema = child->schema;
      *kept = ck;
      for (int i : keep_win) {
        WindowCall wc = node->windows[i];
        for (auto& e : wc.args) e = RemapColumns(e, m);
        for (auto& e : wc.partition_by) e = RemapColumns(e, m);
        for (auto& k : wc.order_by) k.expr = RemapColumns(k.expr, m);
        n->schema.fields.push_back(node->schema.field(w + i));
        n->windows.push_back(std::move(wc));
        kept->push_back(w + i);
      }
      return n;
    }
    case PlanKind::kSetOp: {
      Columns need = required;
      if (!(node->set_op == SetOpKind::kUnion && node->set_all) || need.empty()) {
        need.clear();
        for (int i = 0; i < width; ++i) need.push_back(i);
      }
      std::vector<PlanPtr> inputs;
      for (const auto& c : node->children) inputs.push_back(PruneExact(c, need));
      auto n = WithChildren(*node, std::move(inputs));
      n->schema.fields.clear();
      for (int c : need) n->schema.fields.push_back(node->schema.field(c));
      *kept = need;
      return n;
    }
    case PlanKind::kValues:
    default: {
      kept->clear();
      for (int i = 0; i < width; ++i) kept->push_back(i);
      std::vector<PlanPtr> children;
      for (const auto& c : node->children) {
        Columns all;
        for (int i = 0; i < c->schema.num_fields(); ++i) all.push_back(i);
        children.push_back(PruneExact(c, all));
      }
      return WithChildren(*node, std::move(children));
    }
  }
}

}  // namespace

PlanPtr PruneColumns(const PlanPtr& plan) {
  Columns all;
  for (int i = 0; i < plan->schema.num_fields(); ++i) all.push_back(i);
  Columns kept;
  PlanPtr p = Pruner{}.Prune(plan, all, &kept);
  if (kept != all) p = ProjectColumns(p, all);  // cannot happen: every column was required
  return p;
}

KeptColumns ColumnsEachNodeKeeps(const PlanPtr& plan) {
  KeptColumns kept_of;
  Columns all, kept;
  for (int i = 0; i < plan->schema.num_fields(); ++i) all.push_back(i);
  Pruner{&kept_of}.Prune(plan, all, &kept);
  return kept_of;
}

}  // namespace tandem::plan
