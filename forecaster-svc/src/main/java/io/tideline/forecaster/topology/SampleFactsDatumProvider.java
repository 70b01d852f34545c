package io.tideline.forecaster.topology;

import io.apicurio.registry.serde.avro.AvroDatumProvider;
import io.tideline.platform.serde.SpecificAvroDatumProvider;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;

/**
 * The registry deserializer's datum provider for {@code gpu.telemetry}: a record written as a
 * {@code GpuSample} (any version) is read as {@link SampleFacts} with {@link SampleFactsReader};
 * anything else is read as the platform reads it (so a wrong record type still yields a clear
 * "expected a GpuSample" dead letter). Schema lookup by id and the wire format stay the
 * registry serde's.
 */
public final class SampleFactsDatumProvider implements AvroDatumProvider<Object> {

  static final String GPU_SAMPLE = "io.tideline.events.GpuSample";

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
    DatumReader<Object> reader =
        writer.getType() == Schema.Type.RECORD && GPU_SAMPLE.equals(writer.getFullName())
            ? new SampleFactsReader(writer) : others.createDatumReader(writer);
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
