package io.tideline.forecaster.topology;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;

/**
 * Reads {@link BatchFacts} from a {@code GpuSampleBatch} written with any registered version of
 * its schema: the batch's own fields by a plan computed once per writer schema, each GPU with a
 * {@link SampleFactsReader} for the writer's {@code GpuReading} — the fast path telemetry has
 * ({@link SampleFactsReader}'s comment says why), for the batch topic (ADR 0040).
 */
final class BatchFactsReader implements DatumReader<Object> {

  private enum Take { CLUSTER, NODE_ID, SAMPLED_AT, GPUS, SKIP }

  private final Schema[] schemas;
  private final Take[] plan;
  private final SampleFactsReader gpu;

  BatchFactsReader(Schema writer) {
    List<Schema.Field> fields = writer.getFields();
    this.plan = new Take[fields.size()];
    this.schemas = new Schema[fields.size()];
    SampleFactsReader reading = null;
    for (int i = 0; i < plan.length; i++) {
      Schema.Field f = fields.get(i);
      schemas[i] = f.schema();
      plan[i] = switch (f.name()) {
        case "cluster" -> Take.CLUSTER;
        case "nodeId" -> Take.NODE_ID;
        case "sampledAt" -> Take.SAMPLED_AT;
        case "gpus" -> Take.GPUS;
        default -> Take.SKIP;
      };
      if (plan[i] == Take.GPUS) {
        if (f.schema().getType() != Schema.Type.ARRAY
            || f.schema().getElementType().getType() != Schema.Type.RECORD) {
          throw new AvroTypeException("writer schema " + writer.getFullName()
              + " has gpus that are not an array of records");
        }
        reading = new SampleFactsReader(f.schema().getElementType(), true);
      }
    }
    if (reading == null || writer.getField("nodeId") == null
        || writer.getField("sampledAt") == null
        || writer.getField("sampledAt").schema().getType() != Schema.Type.LONG) {
      throw new AvroTypeException("writer schema " + writer.getFullName()
          + " lacks nodeId/sampledAt/gpus as GpuSampleBatch defines them");
    }
    this.gpu = reading;
  }

  @Override
  public void setSchema(Schema schema) {
    // The plan is fixed at construction for one writer schema.
  }

  @Override
  public Object read(Object reuse, Decoder in) throws IOException {
    String nodeId = null;
    long sampledAt = 0;
    int clusterLength = 0;
    List<SampleFacts> read = List.of();
    for (int i = 0; i < plan.length; i++) {
      switch (plan[i]) {
        case CLUSTER -> clusterLength = in.readString().length();
        case NODE_ID -> nodeId = in.readString();
        case SAMPLED_AT -> sampledAt = in.readLong();
        case GPUS -> {
          read = new ArrayList<>();
          for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
            for (long k = 0; k < n; k++) {
              read.add((SampleFacts) gpu.read(null, in));
            }
          }
        }
        default -> GenericDatumReader.skip(schemas[i], in);
      }
    }
    List<SampleFacts> gpus = new ArrayList<>(read.size());
    for (SampleFacts f : read) {
      gpus.add(new SampleFacts(f.gpuId(), nodeId, sampledAt, f.stale(), f.jobId(), f.serviceId(),
          f.rest()));
    }
    return new BatchFacts(nodeId, sampledAt, clusterLength, gpus);
  }
}
