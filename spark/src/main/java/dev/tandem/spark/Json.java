// One Jackson ObjectMapper for the plugin's JSON (fragments, tasks, verdicts, metrics), with the
// few helpers the code needs. Jackson is on Spark's classpath, so the jar does not ship it.
package dev.tandem.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  static ObjectNode parseObject(String text) {
    try {
      JsonNode node = MAPPER.readTree(text);
      if (node instanceof ObjectNode object) return object;
      throw new IllegalArgumentException("expected a JSON object, got: " + abbreviate(text));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("malformed JSON (" + e.getOriginalMessage() + "): "
          + abbreviate(text), e);
    }
  }

  static String pretty(JsonNode node) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot print JSON", e);
    }
  }

  private static String abbreviate(String text) {
    return text == null ? "null" : text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
