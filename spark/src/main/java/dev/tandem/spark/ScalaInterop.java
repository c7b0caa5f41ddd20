// Scala 2.13 collections and options from Java: Spark's plan API speaks
// scala.collection.immutable.Seq and scala.Option everywhere; these helpers keep the conversions
// in one place.
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.List;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

final class ScalaInterop {
  private ScalaInterop() {}

  @SafeVarargs
  static <T> scala.collection.immutable.Seq<T> seq(T... items) {
    List<T> list = new ArrayList<>(items.length);
    for (T item : items) list.add(item);
    return seq(list);
  }

  static <T> scala.collection.immutable.Seq<T> seq(List<T> items) {
    return CollectionConverters.asScala(items).toList();
  }

  static <T> List<T> list(scala.collection.Seq<T> seq) {
    return CollectionConverters.asJava(seq);
  }

  static <T> T orNull(Option<T> option) {
    return option.isDefined() ? option.get() : null;
  }
}
