// Reading a SparkConf the way the plugin halves need it: as a map.
package dev.tandem.spark;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.SparkConf;
import scala.Tuple2;

final class SparkSettings {
  private SparkSettings() {}

  static Map<String, String> asMap(SparkConf conf) {
    Map<String, String> map = new HashMap<>();
    for (Tuple2<String, String> kv : conf.getAll()) map.put(kv._1(), kv._2());
    return map;
  }
}
