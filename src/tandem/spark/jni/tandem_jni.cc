// libtandem_jni.so: the JNI layer of the Spark plugin (spark/src/main/java/dev/tandem/spark/
// TandemNative.java). Thin on purpose: each call converts its arguments and calls the fragment
// engine (spark/fragment.h, spark/fragment_task.h); every failure becomes a
// dev.tandem.spark.TandemException carrying the engine's one-line message, so a native error
// fails the Spark task, never the JVM. JSON crosses as UTF-8 byte arrays (JNI's own string
// conversion is "modified UTF-8", which changes characters outside the BMP).
#include <jni.h>

#include <exception>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "tandem/common/config.h"
#include "tandem/common/out_of_memory.h"
#include "tandem/gpu/memory_config.h"
#include "tandem/gpu/runtime.h"
#include "tandem/memory/host_memory.h"
#include "tandem/spark/executor_settings.h"
#include "tandem/spark/fragment.h"
#include "tandem/spark/fragment_task.h"
#include "tandem/spark/spark_udfs.h"

namespace {

using tandem::Config;
using tandem::Result;
using tandem::Status;
using tandem::spark::FragmentTask;

std::mutex g_config_mutex;
Config g_config;  // the executor's settings (init)

void Throw(JNIEnv* env, const std::string& message) {
  jclass cls = env->FindClass("dev/tandem/spark/TandemException");
  if (!cls) return;  // FindClass threw NoClassDefFoundError already
  env->ThrowNew(cls, message.c_str());
}

void Throw(JNIEnv* env, const Status& st) { Throw(env, st.ToString()); }

std::string Utf8(JNIEnv* env, jbyteArray bytes) {
  if (!bytes) return "";
  const jsize n = env->GetArrayLength(bytes);
  std::string out(static_cast<size_t>(n), '\0');
  env->GetByteArrayRegion(bytes, 0, n, reinterpret_cast<jbyte*>(out.data()));
  return out;
}

jbyteArray Bytes(JNIEnv* env, const std::string& s) {
  jbyteArray out = env->NewByteArray(static_cast<jsize>(s.size()));
  if (out)
    env->SetByteArrayRegion(out, 0, static_cast<jsize>(s.size()),
                            reinterpret_cast<const jbyte*>(s.data()));
  return out;
}

FragmentTask* TaskOf(jlong handle) { return reinterpret_cast<FragmentTask*>(handle); }

// Runs body, turning an escaping C++ exception into a TandemException.
template <typename T, typename F>
T Guard(JNIEnv* env, T on_error, F body) {
  try {
    return body();
  } catch (const std::bad_alloc& e) {
    Throw(env, tandem::OutOfMemoryText(e));
  } catch (const std::exception& e) {
    Throw(env, std::string("internal error: ") + e.what());
  }
  return on_error;
}

}  // namespace

extern "C" {

// init(settings): the executor's start-up document (spark/executor_settings.h).
JNIEXPORT void JNICALL Java_dev_tandem_spark_TandemNative_init(JNIEnv* env, jclass,
                                                               jbyteArray settings) {
  Guard(env, 0, [&] {
    Result<tandem::spark::ExecutorSettings> parsed =
        tandem::spark::ExecutorSettingsFromJson(Utf8(env, settings));
    if (!parsed.ok()) {
      Throw(env, parsed.status());
      return 0;
    }
    if (Status st = tandem::spark::RegisterUdfLibraries(parsed->udf_libraries); !st.ok()) {
      Throw(env, st);
      return 0;
    }
    const Config* config = &parsed->config;
    tandem::host_memory::SetLimit(config->GetInt(tandem::config_keys::kHostMemoryLimit));
    if (config->Get(tandem::config_keys::kDevice) != "cpu") {
      tandem::gpu::StartRuntimeInBackground(tandem::gpu::DeviceMemoryConfigFrom(*config));
    }
    std::lock_guard<std::mutex> lock(g_config_mutex);
    g_config = *config;
    return 0;
  });
}

JNIEXPORT jbyteArray JNICALL Java_dev_tandem_spark_TandemNative_validate(JNIEnv* env, jclass,
                                                                         jbyteArray fragment) {
  return Guard(env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    auto parsed = tandem::spark::ParseFragment(Utf8(env, fragment));
    if (!parsed.ok()) {
      Throw(env, parsed.status());
      return nullptr;
    }
    const auto verdicts = tandem::spark::ValidateFragment(*parsed);
    return Bytes(env, tandem::spark::VerdictsToJson(verdicts).dump());
  });
}

JNIEXPORT jlong JNICALL Java_dev_tandem_spark_TandemNative_open(JNIEnv* env, jclass,
                                                                jbyteArray fragment,
                                                                jbyteArray task) {
  return Guard(env, jlong{0}, [&]() -> jlong {
    Config config;
    {
      std::lock_guard<std::mutex> lock(g_config_mutex);
      config = g_config;
    }
    auto opened = FragmentTask::Open(Utf8(env, fragment), Utf8(env, task), config);
    if (!opened.ok()) {
      Throw(env, opened.status());
      return 0;
    }
    return reinterpret_cast<jlong>(opened->release());
  });
}

JNIEXPORT void JNICALL Java_dev_tandem_spark_TandemNative_addRows(JNIEnv* env, jclass, jlong h,
                                                                  jint input, jlong address,
                                                                  jlong bytes, jint rows) {
  Guard(env, 0, [&] {
    const Status st =
        TaskOf(h)->AddRows(input, reinterpret_cast<const uint8_t*>(address), bytes, rows);
    if (!st.ok()) Throw(env, st);
    return 0;
  });
}

JNIEXPORT jint JNICALL Java_dev_tandem_spark_TandemNative_execute(JNIEnv* env, jclass, jlong h) {
  return Guard(env, jint{0}, [&]() -> jint {
    const Status st = TaskOf(h)->Execute();
    if (!st.ok()) {
      Throw(env, st);
      return 0;
    }
    return TaskOf(h)->num_batches();
  });
}

// [rows, columns, then per column: validity address (0: no nulls), values address, data address
// (0: none), 1 when string offsets are int64 else 0].
JNIEXPORT jlongArray JNICALL Java_dev_tandem_spark_TandemNative_batch(JNIEnv* env, jclass, jlong h,
                                                                      jint i) {
  return Guard(env, static_cast<jlongArray>(nullptr), [&]() -> jlongArray {
    FragmentTask* task = TaskOf(h);
    if (i < 0 || i >= task->num_batches() || !task->batch(i)) {
      Throw(env, "batch " + std::to_string(i) + " is not there");
      return nullptr;
    }
    const tandem::Batch& b = *task->batch(i);
    std::vector<jlong> out = {b.num_rows, b.num_columns()};
    auto address = [](const std::shared_ptr<tandem::Buffer>& buffer) {
      return buffer ? static_cast<jlong>(reinterpret_cast<intptr_t>(buffer->data())) : jlong{0};
    };
    for (const auto& c : b.columns) {
      out.push_back(c->null_count() > 0 ? address(c->validity()) : 0);
      out.push_back(address(c->values()));
      out.push_back(address(c->data()));
      out.push_back(c->large_offsets() ? 1 : 0);
    }
    jlongArray arr = env->NewLongArray(static_cast<jsize>(out.size()));
    if (arr) env->SetLongArrayRegion(arr, 0, static_cast<jsize>(out.size()), out.data());
    return arr;
  });
}

// [address, bytes, rows] of batch i as packed UnsafeRows (spark/unsafe_row_writer.h), valid
// until release(i).
JNIEXPORT jlongArray JNICALL Java_dev_tandem_spark_TandemNative_rows(JNIEnv* env, jclass, jlong h,
                                                                     jint i) {
  return Guard(env, static_cast<jlongArray>(nullptr), [&]() -> jlongArray {
    Result<const tandem::spark::UnsafeRowBlock*> block = TaskOf(h)->Rows(i);
    if (!block.ok()) {
      Throw(env, block.status());
      return nullptr;
    }
    const jlong out[3] = {static_cast<jlong>(reinterpret_cast<intptr_t>((*block)->bytes->data())),
                          (*block)->size, (*block)->rows};
    jlongArray arr = env->NewLongArray(3);
    if (arr) env->SetLongArrayRegion(arr, 0, 3, out);
    return arr;
  });
}

JNIEXPORT void JNICALL Java_dev_tandem_spark_TandemNative_release(JNIEnv*, jclass, jlong h,
                                                                  jint i) {
  TaskOf(h)->Release(i);
}

JNIEXPORT jbyteArray JNICALL Java_dev_tandem_spark_TandemNative_metrics0(JNIEnv* env, jclass,
                                                                         jlong h) {
  return Guard(env, static_cast<jbyteArray>(nullptr),
               [&]() -> jbyteArray { return Bytes(env, TaskOf(h)->MetricsJson()); });
}

JNIEXPORT void JNICALL Java_dev_tandem_spark_TandemNative_cancel(JNIEnv*, jclass, jlong h) {
  TaskOf(h)->Cancel();
}

JNIEXPORT void JNICALL Java_dev_tandem_spark_TandemNative_close(JNIEnv*, jclass, jlong h) {
  delete TaskOf(h);
}

// {"open_tasks": n, "host_bytes": in use, "host_peak_bytes": peak}: for leak checks in tests.
// udfSignatures(libraries): registers the libraries (a JSON list of paths) and lists their
// functions (spark/spark_udfs.h).
JNIEXPORT jbyteArray JNICALL
Java_dev_tandem_spark_TandemNative_udfSignatures0(JNIEnv* env, jclass, jbyteArray libraries) {
  return Guard(env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    const auto list = nlohmann::json::parse(Utf8(env, libraries), nullptr, false);
    std::vector<std::string> paths;
    if (list.is_array()) {
      for (const auto& p : list) {
        if (p.is_string()) paths.push_back(p.get<std::string>());
      }
    }
    Result<nlohmann::json> sigs = tandem::spark::UdfSignatures(paths);
    if (!sigs.ok()) {
      Throw(env, sigs.status());
      return nullptr;
    }
    return Bytes(env, sigs->dump());
  });
}

// evalUdf(name, packed row): one row through a UDF, for Spark operators that call it.
JNIEXPORT jbyteArray JNICALL Java_dev_tandem_spark_TandemNative_evalUdf0(JNIEnv* env, jclass,
                                                                         jbyteArray name,
                                                                         jbyteArray row) {
  return Guard(env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    const std::string bytes = Utf8(env, row);
    Result<std::string> out =
        tandem::spark::EvalUdfRow(Utf8(env, name), reinterpret_cast<const uint8_t*>(bytes.data()),
                                  static_cast<int64_t>(bytes.size()));
    if (!out.ok()) {
      Throw(env, out.status());
      return nullptr;
    }
    return Bytes(env, *out);
  });
}

JNIEXPORT jbyteArray JNICALL Java_dev_tandem_spark_TandemNative_memory0(JNIEnv* env, jclass) {
  return Guard(env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    const nlohmann::json j = {{"open_tasks", FragmentTask::OpenTasks()},
                              {"host_bytes", tandem::host_memory::InUse()},
                              {"host_peak_bytes", tandem::host_memory::Peak()}};
    return Bytes(env, j.dump());
  });
}

}  // extern "C"
