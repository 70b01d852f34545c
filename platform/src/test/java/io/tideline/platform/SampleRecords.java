package io.tideline.platform;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.RandomData;

/**
 * One generic record of a contract, every field filled (Avro's {@link RandomData}, seeded), with
 * its times set to plausible instants: a sample of each topic for wire-format checks.
 */
final class SampleRecords {

  private static final long BASE = 1_790_000_000_000L; // 2026-09

  private SampleRecords() {}

  static GenericRecord of(Schema schema, long seed) {
    GenericRecord r = (GenericRecord) new RandomData(schema, 1, seed).iterator().next();
    return (GenericRecord) plausible(schema, r);
  }

  private static Object plausible(Schema s, Object v) {
    if (v == null) {
      return null;
    }
    switch (s.getType()) {
      case UNION -> {
        int branch = GenericData.get().resolveUnion(s, v);
        return plausible(s.getTypes().get(branch), v);
      }
      case RECORD -> {
        GenericRecord r = (GenericRecord) v;
        for (Schema.Field f : s.getFields()) {
          r.put(f.pos(), plausible(f.schema(), r.get(f.pos())));
        }
        return r;
      }
      case ARRAY -> {
        List<Object> out = new ArrayList<>();
        for (Object o : (Iterable<?>) v) {
          out.add(plausible(s.getElementType(), o));
        }
        return new GenericData.Array<>(s, out);
      }
      case MAP -> {
        @SuppressWarnings("unchecked")
        Map<Object, Object> m = (Map<Object, Object>) v;
        m.replaceAll((k, o) -> plausible(s.getValueType(), o));
        return m;
      }
      case LONG -> {
        return s.getLogicalType() instanceof LogicalTypes.TimestampMillis
            ? BASE + Math.floorMod((Long) v, 86_400_000L * 365) : v;
      }
      default -> {
        return v;
      }
    }
  }
}
