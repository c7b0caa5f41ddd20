// The UDF loader and registry: loading the example library (examples/udf), the one-line errors
// for missing files and symbols, descriptor validation, and registration rules.
#include "tandem/udf/loader.h"

#include <gtest/gtest.h>

#include "tandem/udf/registry.h"

namespace tandem::udf {
namespace {

#ifdef TANDEM_UDF_EXAMPLE_LIB
constexpr const char* kLib = TANDEM_UDF_EXAMPLE_LIB;
#define REQUIRE_EXAMPLE_LIB() (void)0
#else
constexpr const char* kLib = "";
#define REQUIRE_EXAMPLE_LIB() GTEST_SKIP() << "example UDF library not built"
#endif

int32_t Noop(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  return TANDEM_UDF_OK;
}

const TandemUdfType kDoubleType = {TANDEM_UDF_FLOAT64, 0, 0, 0};

TandemUdf ValidDescriptor() {
  static const TandemUdfType args[] = {kDoubleType, {TANDEM_UDF_DECIMAL, 15, 2, 0}};
  TandemUdf d{};
  d.abi_version = TANDEM_UDF_ABI_VERSION;
  d.name = "my_fn";
  d.num_args = 2;
  d.arg_types = args;
  d.result_type = {TANDEM_UDF_TIMESTAMP, 0, 0, 1};
  d.deterministic = 1;
  d.cost_ns_per_row = 3.5;
  d.cpu = Noop;
  return d;
}

TEST(UdfLoader, LoadsOneFunctionOfTheExampleLibrary) {
  REQUIRE_EXAMPLE_LIB();
  auto f = LoadFunction(kLib, "redact");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ((*f)->name, "redact");
  EXPECT_EQ((*f)->Signature(), "redact(string) -> string");
  EXPECT_TRUE((*f)->deterministic);
  EXPECT_FALSE((*f)->has_gpu());
  EXPECT_EQ((*f)->cost_ns_per_row, 25);
  EXPECT_EQ((*f)->symbol, "redact");
  EXPECT_EQ((*f)->path, kLib);
  auto risk = LoadFunction(kLib, "risk_score");
  ASSERT_TRUE(risk.ok()) << risk.status().message();
  EXPECT_EQ((*risk)->Signature(), "risk_score(float64, float64) -> float64");
#ifdef TANDEM_HAVE_CUDA
  EXPECT_TRUE((*risk)->has_gpu());
#endif
}

TEST(UdfLoader, ListsEveryFunctionOfALibrary) {
  REQUIRE_EXAMPLE_LIB();
  auto all = LoadLibraryFunctions(kLib);
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::vector<std::string> names;
  for (const auto& f : *all) names.push_back(f->name);
  EXPECT_NE(std::find(names.begin(), names.end(), "redact"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "risk_score"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "test_sequence"), names.end());
  for (const auto& f : *all) {
    if (f->name == "test_sequence") EXPECT_FALSE(f->deterministic);
  }
}

TEST(UdfLoader, MissingFileAndSymbolAreOneLineErrors) {
  auto missing = LoadFunction("/nonexistent/libnothing.so", "f");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(
      missing.status().message().rfind("cannot load UDF library /nonexistent/libnothing.so: ", 0),
      0u)
      << missing.status().message();
  EXPECT_EQ(missing.status().message().find('\n'), std::string::npos);
  REQUIRE_EXAMPLE_LIB();
  auto no_symbol = LoadFunction(kLib, "no_such_function");
  ASSERT_FALSE(no_symbol.ok());
  EXPECT_EQ(no_symbol.status().message(),
            std::string("symbol no_such_function not found in ") + kLib);
}

TEST(UdfLoader, ValidatesDescriptors) {
  const TandemUdf good = ValidDescriptor();
  auto f = FromDescriptor(&good, "lib.so", "sym");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ((*f)->Signature(), "my_fn(float64, decimal(15,2)) -> timestamp[us, tz=UTC]");
  EXPECT_EQ((*f)->cost_ns_per_row, 3.5);

  auto expect_error = [](const TandemUdf& d, const std::string& part) {
    auto r = FromDescriptor(&d, "lib.so", "sym");
    ASSERT_FALSE(r.ok()) << part;
    EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("lib.so"), std::string::npos) << r.status().message();
  };
  EXPECT_FALSE(FromDescriptor(nullptr, "lib.so", "sym").ok());
  TandemUdf d = good;
  d.abi_version = 7;
  expect_error(d, "ABI version 7, expected 1");
  d = good;
  d.cpu = nullptr;
  expect_error(d, "no CPU implementation");
  d = good;
  d.name = "Bad-Name";
  expect_error(d, "name must be");
  d = good;
  d.num_args = -1;
  expect_error(d, "-1 arguments");
  d = good;
  d.arg_types = nullptr;
  expect_error(d, "arg_types is null");
  static const TandemUdfType bad_args[] = {kDoubleType, {TANDEM_UDF_DECIMAL, 40, 2, 0}};
  d = good;
  d.arg_types = bad_args;
  expect_error(d, "argument 2 has an invalid type");
  d = good;
  d.result_type = {99, 0, 0, 0};
  expect_error(d, "invalid result type (id 99)");
  d = good;
  d.result_type = {TANDEM_UDF_INT64, 3, 0, 0};
  expect_error(d, "invalid result type");
  d = good;
  d.cost_ns_per_row = -1;
  expect_error(d, "cost_ns_per_row");
}

TEST(UdfRegistry, RegistersFindsAndDrops) {
  const TandemUdf good = ValidDescriptor();
  auto f = FromDescriptor(&good, "lib.so", "sym");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(RegisterFunction("registry_test_fn", *f, false).ok());
  auto found = FindFunction("registry_test_fn");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "registry_test_fn");  // registered under the SQL name
  const auto names = FunctionNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "registry_test_fn"), names.end());
  Status again = RegisterFunction("registry_test_fn", *f, false);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already exists"), std::string::npos) << again.message();
  EXPECT_TRUE(RegisterFunction("registry_test_fn", *f, true).ok());
  EXPECT_TRUE(DropFunction("registry_test_fn"));
  EXPECT_FALSE(DropFunction("registry_test_fn"));
  EXPECT_EQ(FindFunction("registry_test_fn"), nullptr);
}

TEST(UdfRegistry, BuiltinNamesCannotBeTaken) {
  const TandemUdf good = ValidDescriptor();
  auto f = FromDescriptor(&good, "lib.so", "sym");
  ASSERT_TRUE(f.ok());
  for (const char* name : {"upper", "sum", "substr", "year", "row_number", "coalesce"}) {
    Status st = RegisterFunction(name, *f, true);
    ASSERT_FALSE(st.ok()) << name;
    EXPECT_NE(st.message().find("built-in"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace tandem::udf
