// The plugin's copy of the engine's table of Spark operators and expressions
// (src/tandem/spark/support_table.h): `tandem spark support --json`, written into the jar at build
// time, so the plugin, the engine and `tandem qualify` read one list. An operator or expression
// class the table does not mark "translated" stays in Spark, whatever code the plugin has for it.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

final class SupportTable {
  static final String RESOURCE = "/dev/tandem/spark/support.json";

  private static volatile SupportTable instance;

  private final Set<String> operators = new LinkedHashSet<>();
  private final Set<String> expressions = new LinkedHashSet<>();
  private final Map<String, String> reasons = new HashMap<>();

  private SupportTable(JsonNode table) {
    read(table.path("operators"), operators);
    read(table.path("expressions"), expressions);
  }

  private void read(JsonNode list, Set<String> translated) {
    for (JsonNode e : list) {
      String cls = e.path("class").asText();
      if ("translated".equals(e.path("support").asText())) {
        translated.add(cls);
      } else if (!e.path("reason").asText().isEmpty()) {
        reasons.putIfAbsent(cls, e.path("reason").asText());
      }
    }
  }

  static SupportTable get() {
    if (instance == null) {
      synchronized (SupportTable.class) {
        if (instance == null) instance = load();
      }
    }
    return instance;
  }

  private static SupportTable load() {
    try (InputStream in = SupportTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the plugin jar lacks " + RESOURCE
            + " (spark/build.sh writes it from `tandem spark support --json`)");
      }
      return new SupportTable(new ObjectMapper().readTree(in));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
    }
  }

  /** Spark operator classes the plugin translates (FilterExec, ...). */
  Set<String> operators() {
    return operators;
  }

  /** Spark expression classes the plugin translates (IsNotNull, Sum, ...). */
  Set<String> expressions() {
    return expressions;
  }

  /** Why a class stays in Spark, when the table says; else null. */
  String reason(String cls) {
    return reasons.get(cls);
  }
}
