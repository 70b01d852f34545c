package io.tideline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tideline.core.admission.SubmissionCheck;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import io.tideline.platform.validation.InputBounds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * Turns a {@code job.yaml} into a {@link JobSubmitted}, checked twice: against the Avro contract
 * itself (walking the schema: required fields, types, enum symbols, unknown fields — each error
 * names its field path) and against the platform's {@link EventValidator}, the check every
 * consumer of {@code jobs.submitted} applies (the core's {@link SubmissionCheck}, every field
 * bound, event time). The YAML mirrors the contract's field names; timestamps are ISO-8601 instants.
 */
final class JobYaml {

  /** The outcome: a job, or every error found. */
  record Parsed(JobSubmitted job, List<String> errors) {
    boolean ok() {
      return errors.isEmpty();
    }
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final EventValidator VALIDATOR = new EventValidator(InputBounds.DEFAULTS);

  private JobYaml() {}

  /**
   * @param yaml the file's text
   * @param now fills {@code submittedAt} when the file leaves it out
   */
  static Parsed parse(String yaml, Instant now) {
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml);
    } catch (IOException e) {
      return new Parsed(null, List.of("not valid YAML: " + e.getMessage()));
    }
    if (tree == null || !tree.isObject()) {
      return new Parsed(null, List.of("the file must be a YAML mapping of the job's fields"));
    }
    ObjectNode job = (ObjectNode) tree;
    if (!job.has("submittedAt")) {
      job.set("submittedAt", TextNode.valueOf(now.toString()));
    }
    List<String> errors = new ArrayList<>();
    Object generic = convert(job, JobSubmitted.getClassSchema(), "", errors);
    if (!errors.isEmpty()) {
      return new Parsed(null, errors);
    }
    JobSubmitted event = toSpecific((GenericRecord) generic);
    // the same check every consumer of jobs.submitted applies, against the time it will carry
    String problem = VALIDATOR.problem(TopicCatalogue.JOBS_SUBMITTED,
        event.getJobId().getBytes(java.nio.charset.StandardCharsets.UTF_8), event,
        now.toEpochMilli());
    if (problem != null) {
      errors.add(problem);
    }
    return errors.isEmpty() ? new Parsed(event, List.of()) : new Parsed(null, errors);
  }

  /** Schema-guided conversion of a YAML node to Avro's generic representation. */
  private static Object convert(JsonNode n, Schema s, String path, List<String> errors) {
    String at = path.isEmpty() ? "(root)" : path;
    switch (s.getType()) {
      case UNION -> {
        if (n == null || n.isNull()) {
          if (s.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.NULL)) {
            return null;
          }
          errors.add(at + ": must not be null");
          return null;
        }
        Schema branch = s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL)
            .findFirst().orElseThrow();
        return convert(n, branch, path, errors);
      }
      case RECORD -> {
        if (n == null || !n.isObject()) {
          errors.add(at + ": expected a mapping with fields " + fieldNames(s));
          return null;
        }
        GenericData.Record r = new GenericData.Record(s);
        for (Schema.Field f : s.getFields()) {
          String p = path.isEmpty() ? f.name() : path + "." + f.name();
          JsonNode v = n.get(f.name());
          if (v == null) {
            if (f.hasDefaultValue()) {
              r.put(f.pos(), GenericData.get().deepCopy(f.schema(), GenericData.get().getDefaultValue(f)));
            } else {
              errors.add(p + ": is required (" + f.doc() + ")");
            }
          } else {
            r.put(f.pos(), convert(v, f.schema(), p, errors));
          }
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
          String name = it.next();
          if (s.getField(name) == null) {
            errors.add((path.isEmpty() ? "" : path + ".") + name + ": unknown field; known: "
                + fieldNames(s));
          }
        }
        return r;
      }
      case ENUM -> {
        if (n.isTextual() && s.getEnumSymbols().contains(n.asText())) {
          return new GenericData.EnumSymbol(s, n.asText());
        }
        errors.add(at + ": must be one of " + s.getEnumSymbols() + ", got " + n);
        return null;
      }
      case ARRAY -> {
        if (!n.isArray()) {
          errors.add(at + ": expected a list");
          return null;
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
          out.add(convert(n.get(i), s.getElementType(), path + "[" + i + "]", errors));
        }
        return new GenericData.Array<>(s, out);
      }
      case MAP -> {
        if (!n.isObject()) {
          errors.add(at + ": expected a mapping");
          return null;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        n.fields().forEachRemaining(e ->
            out.put(e.getKey(), convert(e.getValue(), s.getValueType(), path + "." + e.getKey(), errors)));
        return out;
      }
      case STRING -> {
        if (n.isTextual()) {
          return n.asText();
        }
        errors.add(at + ": expected text, got " + n);
        return null;
      }
      case BOOLEAN -> {
        if (n.isBoolean()) {
          return n.asBoolean();
        }
        errors.add(at + ": expected true or false, got " + n);
        return null;
      }
      case INT -> {
        if (n.canConvertToInt() && n.isIntegralNumber()) {
          return n.asInt();
        }
        errors.add(at + ": expected a whole number, got " + n);
        return null;
      }
      case LONG -> {
        if (s.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
          if (n.isTextual()) {
            try {
              return Instant.parse(n.asText()).toEpochMilli();
            } catch (DateTimeParseException e) {
              errors.add(at + ": expected an ISO-8601 instant like 2026-11-02T09:00:00Z, got " + n);
              return null;
            }
          }
        }
        if (n.isIntegralNumber() && n.canConvertToLong()) {
          return n.asLong();
        }
        errors.add(at + ": expected a whole number, got " + n);
        return null;
      }
      case DOUBLE, FLOAT -> {
        if (n.isNumber()) {
          return s.getType() == Schema.Type.DOUBLE ? (Object) n.asDouble() : (Object) (float) n.asDouble();
        }
        errors.add(at + ": expected a number, got " + n);
        return null;
      }
      default -> {
        errors.add(at + ": unsupported type " + s.getType());
        return null;
      }
    }
  }

  private static String fieldNames(Schema s) {
    return String.join(", ", new TreeSet<>(s.getFields().stream().map(Schema.Field::name).toList()));
  }

  /** Generic → bytes → generated class, so logical types (timestamps) get their Java types. */
  private static JobSubmitted toSpecific(GenericRecord generic) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(generic.getSchema()).write(generic, enc);
      enc.flush();
      SpecificData data = new SpecificData(JobSubmitted.class.getClassLoader());
      return new SpecificDatumReader<JobSubmitted>(JobSubmitted.getClassSchema(),
          JobSubmitted.getClassSchema(), data)
          .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    } catch (IOException e) {
      throw new IllegalStateException("could not build the JobSubmitted record: " + e, e);
    }
  }
}
