// The session extension (spark.sql.extensions=dev.tandem.spark.TandemExtensions, which
// TandemPlugin's driver half adds): installs Tandem's ColumnarRule and the functions of
// spark.tandem.udf.libraries (TandemUdfs) in every session. The jar has
// no ServiceLoader entry for it, so it is never applied twice by accident (the rules are
// idempotent anyway).
package dev.tandem.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.runtime.BoxedUnit;

public final class TandemExtensions implements SparkSessionExtensionsProvider {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(session -> new TandemColumnarRule());
    TandemUdfs.inject(extensions);
    return BoxedUnit.UNIT;
  }
}
