// Shared fixture of the expression tests: builds a batch column by column, resolves calls the
// way the binder does and evaluates expressions to row texts.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/format/value_format.h"

namespace tandem::test_util {

// A batch that grows one column per Add(); Call resolves a function through the registry (with
// the casts the binder would insert) and Eval runs an expression over the batch.
struct ExprFixture {
  Batch batch;
  EvalContext ctx;

  ExprPtr Add(ColumnPtr c) {
    const int i = batch.num_columns();
    batch.schema.fields.push_back({"c" + std::to_string(i), c->type(), true});
    batch.num_rows = c->length();
    batch.columns.push_back(c);
    return MakeColumnRef(i, c->type(), true, "c" + std::to_string(i));
  }
  // Resolves `fn` through the registry (casting args as the binder would).
  ExprPtr Call(const std::string& fn, std::vector<ExprPtr> args) {
    std::vector<DataType> types;
    for (auto& a : args) types.push_back(a->type);
    auto r = ResolveScalarFunction(fn, types);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]->type != r->arg_types[i]) {
        args[i] = MakeCast(args[i], r->arg_types[i]);
        if (IsConstant(*args[i]))
          args[i] = MakeLiteral(cpu::EvaluateConstant(*args[i], ctx).value());
      }
    }
    return MakeCall(r->name, std::move(args), r->result_type, true);
  }
  // Text of each row ("NULL" for nulls).
  std::vector<std::string> Eval(const ExprPtr& e) {
    auto r = cpu::Evaluate(*e, batch, ctx);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    EXPECT_EQ((*r)->type(), e->type) << e->ToString();
    for (int64_t i = 0; i < (*r)->length(); ++i) {
      std::string s;
      if ((*r)->IsNull(i)) {
        s = "NULL";
      } else {
        format::AppendText(**r, i, &s);
      }
      out.push_back(s);
    }
    return out;
  }
  std::string Error(const ExprPtr& e) {
    auto r = cpu::Evaluate(*e, batch, ctx);
    return r.ok() ? "OK" : r.status().message();
  }
};

}  // namespace tandem::test_util
