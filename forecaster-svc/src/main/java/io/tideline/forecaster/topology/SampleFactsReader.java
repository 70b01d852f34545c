package io.tideline.forecaster.topology;

import java.io.IOException;
import java.util.List;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;

/**
 * Reads {@link SampleFacts} from a {@code GpuSample} written with any registered version of its
 * schema (the writer schema the registry resolves from the record's id): the six fields the
 * forecaster needs are read, and of the others what the shared input check needs (the GPU index,
 * the figures, the length of the longest other string); every other field is skipped by a skipper
 * compiled once per writer schema, without building strings or objects for it.
 *
 * <p>Why by hand: the full specific reader builds ~17 fields, 8 strings, an enum and an
 * {@code Instant} per sample, most of which the forecaster never looks at; profiling showed
 * decoding as the largest single cost of the topology. The plan is computed once per writer
 * schema. A field missing from an old writer schema keeps the reader default (null).
 */
final class SampleFactsReader implements DatumReader<Object> {

  private enum Take {
    GPU_ID, NODE_ID, SAMPLED_AT, STATE, JOB_ID, SERVICE_ID, GPU_INDEX, FIGURE, TEXT, SKIP
  }

  /** Skips one value of a field the forecaster does not use. */
  @FunctionalInterface
  private interface Skip {
    void skip(Decoder in) throws IOException;
  }

  private final List<Schema.Field> fields;
  private final Take[] plan;
  private final Skip[] skips;
  private final int okIndex;
  private final int[] figureIndex;

  SampleFactsReader(Schema writer) {
    this(writer, false);
  }

  /**
   * @param reading whether {@code writer} is one GPU of a batch ({@code GpuReading}, ADR 0040):
   *     it has no nodeId nor sampledAt (the batch's), read as null and 0
   */
  SampleFactsReader(Schema writer, boolean reading) {
    this.fields = writer.getFields();
    this.plan = new Take[fields.size()];
    this.skips = new Skip[fields.size()];
    this.figureIndex = new int[fields.size()];
    int ok = -1;
    for (int i = 0; i < plan.length; i++) {
      Schema.Field f = fields.get(i);
      plan[i] = switch (f.name()) {
        case "gpuId" -> Take.GPU_ID;
        case "nodeId" -> Take.NODE_ID;
        case "sampledAt" -> Take.SAMPLED_AT;
        case "state" -> Take.STATE;
        case "jobId" -> Take.JOB_ID;
        case "serviceId" -> Take.SERVICE_ID;
        case "gpuIndex" -> Take.GPU_INDEX;
        case "utilizationPct", "memoryUsedMiB", "memoryFreeMiB", "powerWatts", "temperatureC" ->
            Take.FIGURE;
        case "cluster", "model", "namespace", "pod", "container" -> Take.TEXT;
        default -> Take.SKIP;
      };
      if (plan[i] == Take.FIGURE) {
        figureIndex[i] = java.util.Arrays.asList(SampleFacts.Rest.FIGURES).indexOf(f.name());
      }
      if (plan[i] == Take.SKIP) {
        skips[i] = skipper(f.schema());
      }
      if (plan[i] == Take.STATE) {
        ok = f.schema().getEnumOrdinal("OK");
      }
    }
    if (ok < 0 || writer.getField("gpuId") == null
        || !writer.getField("gpuId").schema().getType().equals(Schema.Type.STRING)
        || !reading && (writer.getField("sampledAt") == null
            || writer.getField("sampledAt").schema().getType() != Schema.Type.LONG)) {
      throw new AvroTypeException("writer schema " + writer.getFullName()
          + " lacks gpuId/sampledAt/state as GpuSample defines them");
    }
    this.okIndex = ok;
  }

  @Override
  public void setSchema(Schema schema) {
    // The plan is fixed at construction for one writer schema.
  }

  @Override
  public Object read(Object reuse, Decoder in) throws IOException {
    String gpuId = null;
    String nodeId = null;
    long sampledAt = 0;
    boolean stale = false;
    String jobId = null;
    String serviceId = null;
    int gpuIndex = 0;
    Double[] figures = new Double[SampleFacts.Rest.FIGURES.length];
    String longestField = null;
    int longest = 0;
    for (int i = 0; i < plan.length; i++) {
      switch (plan[i]) {
        case GPU_ID -> gpuId = in.readString();
        case NODE_ID -> nodeId = in.readString();
        case SAMPLED_AT -> sampledAt = in.readLong();
        case STATE -> stale = in.readEnum() != okIndex;
        case JOB_ID -> jobId = optionalString(fields.get(i).schema(), in);
        case SERVICE_ID -> serviceId = optionalString(fields.get(i).schema(), in);
        case GPU_INDEX -> gpuIndex = in.readInt();
        case FIGURE -> figures[figureIndex[i]] = optionalDouble(fields.get(i).schema(), in);
        case TEXT -> {
          int length = textLength(fields.get(i).schema(), in);
          if (length > longest) {
            longest = length;
            longestField = fields.get(i).name();
          }
        }
        default -> skips[i].skip(in);
      }
    }
    return new SampleFacts(gpuId, nodeId, sampledAt, stale, jobId, serviceId,
        new SampleFacts.Rest(gpuIndex, figures, longestField, longest));
  }

  /**
   * A skipper compiled once per field: the common types directly, anything else (records,
   * arrays, maps, fixed) through Avro's generic {@link GenericDatumReader#skip}.
   */
  private static Skip skipper(Schema schema) {
    return switch (schema.getType()) {
      case STRING -> Decoder::skipString;
      case BYTES -> Decoder::skipBytes;
      case INT -> Decoder::readInt;
      case LONG -> Decoder::readLong;
      case FLOAT -> in -> in.skipFixed(4);
      case DOUBLE -> in -> in.skipFixed(8);
      case BOOLEAN -> Decoder::readBoolean;
      case ENUM -> Decoder::readEnum;
      case NULL -> Decoder::readNull;
      case UNION -> {
        Skip[] branches = schema.getTypes().stream().map(SampleFactsReader::skipper)
            .toArray(Skip[]::new);
        yield in -> branches[in.readIndex()].skip(in);
      }
      default -> in -> GenericDatumReader.skip(schema, in);
    };
  }

  /** A {@code ["null", "double"]} (either order) or plain double field. */
  private static Double optionalDouble(Schema schema, Decoder in) throws IOException {
    Schema branch = schema;
    if (schema.getType() == Schema.Type.UNION) {
      branch = schema.getTypes().get(in.readIndex());
    }
    return switch (branch.getType()) {
      case NULL -> {
        in.readNull();
        yield null;
      }
      case DOUBLE -> in.readDouble();
      case FLOAT -> (double) in.readFloat();
      default -> throw new AvroTypeException("expected a double, the writer has " + branch);
    };
  }

  /**
   * The length in characters of a (nullable) string field, read without keeping the string
   * unless it is long (its UTF-8 byte count bounds its characters from above).
   */
  private int textLength(Schema schema, Decoder in) throws IOException {
    Schema branch = schema;
    if (schema.getType() == Schema.Type.UNION) {
      branch = schema.getTypes().get(in.readIndex());
      if (branch.getType() == Schema.Type.NULL) {
        in.readNull();
        return 0;
      }
    }
    if (branch.getType() != Schema.Type.STRING) {
      GenericDatumReader.skip(branch, in);
      return 0;
    }
    text = in.readString(text);
    // a short string cannot break any bound: skip building it (its bytes bound its characters)
    return text.getByteLength() <= 32 ? text.getByteLength() : text.toString().length();
  }

  private org.apache.avro.util.Utf8 text;

  /** A {@code ["null", "string"]} (either order) or plain string field. */
  private static String optionalString(Schema schema, Decoder in) throws IOException {
    if (schema.getType() == Schema.Type.STRING) {
      return in.readString();
    }
    Schema branch = schema.getTypes().get(in.readIndex());
    if (branch.getType() == Schema.Type.NULL) {
      in.readNull();
      return null;
    }
    if (branch.getType() != Schema.Type.STRING) {
      throw new AvroTypeException("expected a string, the writer has " + branch);
    }
    return in.readString();
  }
}
