package io.tideline.forecaster.topology;

import io.apicurio.registry.serde.avro.AvroDatumProvider;
import io.tideline.platform.serde.SpecificAvroDatumProvider;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;

/**
 * The registry deserializer's datum provider for {@code gpu.telemetry} and
 * {@code gpu.telemetry.batches}: a record written as a {@code GpuSample} (any version) is read as
 * {@link SampleFacts} with {@link SampleFactsReader}, a {@code GpuSampleBatch} as
 * {@link BatchFacts} with {@link BatchFactsReader};
 * anything else is read as the platform reads it (so a wrong record type still yields a clear
 * "expected a GpuSample" dead letter). Schema lookup by id and the wire format stay the
 * registry serde's.
 */
public final class SampleFactsDatumProvider implements AvroDatumProvider<Object> {

  static final String GPU_SAMPLE = "io.tideline.events.GpuSample";
  static final String GPU_SAMPLE_BATCH = "io.tideline.events.GpuSampleBatch";

  private final SpecificAvroDatumProvider<Object> others = new SpecificAvroDatumProvider<>();
  // The deserializer asks for a reader per record; the writer schema is almost always the same
  // object, so an identity check beats a hash lookup.
  private volatile Last last;

  private record Last(Schema writer, DatumReader<Object> reader) {}

  @Override
  public DatumReader<Object> createDatumReader(Schema writer) {
    Last seen = last;
    if (seen != null && seen.writer() == writer) {
      return seen.reader();
    }
    boolean record = writer.getType() == Schema.Type.RECORD;
    DatumReader<Object> reader = record && GPU_SAMPLE.equals(writer.getFullName())
        ? new SampleFactsReader(writer)
        : record && GPU_SAMPLE_BATCH.equals(writer.getFullName()) ? new BatchFactsReader(writer)
        : others.createDatumReader(writer);
    last = new Last(writer, reader);
    return reader;
  }

  @Override
  public DatumWriter<Object> createDatumWriter(Object data, Schema schema) {
    return others.createDatumWriter(data, schema);
  }

  @Override
  public Schema toSchema(Object data) {
    return others.toSchema(data);
  }
}
