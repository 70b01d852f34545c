package io.tideline.cli;

import io.tideline.platform.explain.Fields;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericRecord;

/** Human-readable rendering of decoded events: JSON with timestamps as ISO-8601 instants. */
final class Render {

  private Render() {}

  static String json(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, value instanceof GenericContainer c ? c.getSchema() : null);
    return sb.toString();
  }

  /** A field of a record by name, or null (one implementation: platform's {@link Fields}). */
  static Object field(Object record, String name) {
    return Fields.field(record, name);
  }

  static String text(Object record, String name) {
    return Fields.text(record, name);
  }

  static Instant instant(Object record, String name) {
    return Fields.instant(record, name);
  }

  private static void write(StringBuilder sb, Object v, Schema schema) {
    Schema s = nonNull(schema, v);
    if (v == null) {
      sb.append("null");
    } else if (v instanceof GenericRecord r) {
      sb.append('{');
      boolean first = true;
      for (Schema.Field f : r.getSchema().getFields()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        sb.append('"').append(f.name()).append("\": ");
        write(sb, r.get(f.pos()), f.schema());
      }
      sb.append('}');
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (var e : m.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        sb.append('"').append(e.getKey()).append("\": ");
        write(sb, e.getValue(), s == null ? null : s.getValueType());
      }
      sb.append('}');
    } else if (v instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        write(sb, o, s == null ? null : s.getElementType());
      }
      sb.append(']');
    } else if (v instanceof Long l && s != null && s.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
      sb.append('"').append(Instant.ofEpochMilli(l)).append('"');
    } else if (v instanceof ByteBuffer b) {
      sb.append("\"<").append(b.remaining()).append(" bytes>\"");
    } else if (v instanceof CharSequence || v instanceof Enum<?> || v instanceof GenericContainer
        || v instanceof Instant) {
      sb.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    } else {
      sb.append(v);
    }
  }

  /** The branch of a union that holds {@code v}, or the schema itself. */
  private static Schema nonNull(Schema s, Object v) {
    if (s == null || s.getType() != Schema.Type.UNION) {
      return s;
    }
    for (Schema t : s.getTypes()) {
      if (t.getType() != Schema.Type.NULL) {
        return t;
      }
    }
    return null;
  }
}
