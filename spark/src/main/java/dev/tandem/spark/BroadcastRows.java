// The rows of a broadcast, for a broadcast input: a broadcast hash join's HashedRelation (every
// stored row, each once: an UnsafeHashedRelation's values through valuesWithKeyIndex, since its
// keys() repeats a key once per row; a LongHashedRelation's unique keys and their rows), or a
// nested-loop join's InternalRow[]. Each task reads its own read-only copy of a relation.
package dev.tandem.spark;

import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.joins.EmptyHashedRelation$;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.execution.joins.LongHashedRelation;
import org.apache.spark.sql.execution.joins.UnsafeHashedRelation;
import org.apache.spark.sql.execution.joins.ValueRowWithKeyIndex;
import scala.jdk.javaapi.CollectionConverters;

final class BroadcastRows {
  private BroadcastRows() {}

  static Iterator<InternalRow> of(Object value) {
    if (value instanceof InternalRow[] rows) return Arrays.asList(rows).iterator();
    if (value == EmptyHashedRelation$.MODULE$) return Collections.emptyIterator();
    if (value instanceof UnsafeHashedRelation relation) {
      Iterator<ValueRowWithKeyIndex> values =
          CollectionConverters.asJava(relation.asReadOnlyCopy().valuesWithKeyIndex());
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return values.hasNext();
        }

        @Override
        public InternalRow next() {
          return values.next().getValue();
        }
      };
    }
    if (value instanceof LongHashedRelation relation) return rowsByKey(relation.asReadOnlyCopy());
    throw new IllegalStateException("Tandem cannot read a broadcast of "
        + value.getClass().getName());
  }

  /** Every row of a relation whose keys() lists each key once. */
  private static Iterator<InternalRow> rowsByKey(HashedRelation relation) {
    Iterator<InternalRow> keys = CollectionConverters.asJava(relation.keys());
    return new Iterator<>() {
      private Iterator<InternalRow> rows = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!rows.hasNext() && keys.hasNext()) {
          scala.collection.Iterator<InternalRow> matches = relation.get(keys.next());
          rows = matches == null
              ? Collections.emptyIterator()
              : CollectionConverters.asJava(matches);
        }
        return rows.hasNext();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) throw new NoSuchElementException();
        return rows.next();
      }
    };
  }
}
