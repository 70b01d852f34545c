package io.tideline.platform.explain;

import java.time.Instant;
import org.apache.avro.generic.GenericRecord;

/**
 * Reading a decoded event's fields by name, whether it is a generic record (the CLI reads every
 * topic generically) or a generated one (generated records are generic records too).
 */
public final class Fields {

  private Fields() {}

  /** A field of a record by name, or null when the value is no record or has no such field. */
  public static Object field(Object record, String name) {
    if (record instanceof GenericRecord r && r.getSchema().getField(name) != null) {
      return r.get(name);
    }
    return null;
  }

  public static String text(Object record, String name) {
    Object v = field(record, name);
    return v == null ? null : v.toString();
  }

  /** A timestamp-millis field as an instant, or null. */
  public static Instant instant(Object record, String name) {
    Object v = field(record, name);
    if (v instanceof Long l) {
      return Instant.ofEpochMilli(l);
    }
    return v instanceof Instant i ? i : null;
  }
}
