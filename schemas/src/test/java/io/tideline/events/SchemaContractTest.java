package io.tideline.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.junit.jupiter.api.Test;

/**
 * The contracts' rules: every record and field documented, and every contract BACKWARD compatible
 * with each released version (a consumer on the new schema reads everything ever written), so a
 * breaking change fails the build instead of a consumer in production.
 */
class SchemaContractTest {

  @Test
  void shouldDocumentEveryRecordEnumAndField() {
    List<String> undocumented = new ArrayList<>();
    for (var type : Contracts.all()) {
      collectUndocumented(Contracts.schemaOf(type), undocumented, new IdentityHashMap<>());
    }
    assertThat(undocumented).isEmpty();
  }

  @Test
  void shouldKeepEveryContractBackwardCompatibleWithEachReleasedVersion() throws IOException {
    List<String> problems = new ArrayList<>();
    for (var type : Contracts.all()) {
      Schema current = Contracts.schemaOf(type);
      List<Schema> released = SchemaHistory.versions(SchemaHistory.DIR, current.getName());
      if (released.isEmpty()) {
        problems.add(current.getName() + ": no released version; run SchemaHistory to release it");
      }
      for (int v = 0; v < released.size(); v++) {
        String incompatibility = backwardIncompatibility(current, released.get(v));
        if (incompatibility != null) {
          problems.add(current.getName() + " v" + (v + 1) + ": " + incompatibility);
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void shouldRejectRemovingADefaultlessFieldReadersNeed() {
    Schema released = Contracts.schemaOf(JobSubmitted.class);
    // A "new" JobSubmitted that adds a required field without a default: old records cannot be read.
    String broken = released.toString().replaceFirst("\"fields\":\\[",
        "\"fields\":[{\"name\":\"priorityClass\",\"type\":\"string\",\"doc\":\"new\"},");
    Schema next = new Schema.Parser().parse(broken);
    assertThat(backwardIncompatibility(next, released)).contains("priorityClass");
  }

  @Test
  void shouldAcceptAddingAnOptionalFieldWithADefault() {
    Schema released = Contracts.schemaOf(JobSubmitted.class);
    String evolved = released.toString().replaceFirst("\"fields\":\\[",
        "\"fields\":[{\"name\":\"labels\",\"type\":{\"type\":\"map\",\"values\":\"string\"},"
            + "\"default\":{},\"doc\":\"new\"},");
    assertThat(backwardIncompatibility(new Schema.Parser().parse(evolved), released)).isNull();
  }

  /** Null when {@code reader} reads everything {@code writer} wrote; else the reason. */
  static String backwardIncompatibility(Schema reader, Schema writer) {
    var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
    if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
      return null;
    }
    return result.getResult().getIncompatibilities().stream()
        .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage())
        .reduce((a, b) -> a + "; " + b).orElse(result.getDescription());
  }

  private static void collectUndocumented(Schema s, List<String> out, Map<Schema, Boolean> seen) {
    if (seen.put(s, true) != null) {
      return;
    }
    switch (s.getType()) {
      case RECORD -> {
        if (isBlank(s.getDoc())) {
          out.add(s.getFullName());
        }
        for (Schema.Field f : s.getFields()) {
          if (isBlank(f.doc())) {
            out.add(s.getName() + "." + f.name());
          }
          collectUndocumented(f.schema(), out, seen);
        }
      }
      case ENUM -> {
        if (isBlank(s.getDoc())) {
          out.add(s.getFullName());
        }
      }
      case UNION -> s.getTypes().forEach(t -> collectUndocumented(t, out, seen));
      case ARRAY -> collectUndocumented(s.getElementType(), out, seen);
      case MAP -> collectUndocumented(s.getValueType(), out, seen);
      default -> { }
    }
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
