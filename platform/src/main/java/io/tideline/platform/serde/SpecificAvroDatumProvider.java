package io.tideline.platform.serde;

import io.apicurio.registry.serde.avro.AvroDatumProvider;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Reads and writes our generated Avro classes with the class loader that loaded them.
 *
 * <p>Apicurio's default provider resolves record classes through {@code SpecificData.get()},
 * whose class loader is Avro's own. Where Avro is loaded parent-first (Quarkus tests, some
 * application servers) that yields a second copy of {@code JobSubmitted} that the application
 * cannot use. This provider resolves them where {@code io.tideline.events} lives, and reads with
 * the writer's schema resolved against our reader schema, so older records still decode.
 */
public class SpecificAvroDatumProvider<T> implements AvroDatumProvider<T> {

  private static final SpecificData DATA = withConversions(
      new SpecificData(io.tideline.events.Contracts.class.getClassLoader()));

  private final ConcurrentHashMap<Schema, DatumReader<T>> readers = new ConcurrentHashMap<>();

  @Override
  public DatumWriter<T> createDatumWriter(T data, Schema schema) {
    return data instanceof SpecificRecord
        ? new SpecificDatumWriter<>(schema, DATA)
        : new GenericDatumWriter<>(schema);
  }

  @Override
  public DatumReader<T> createDatumReader(Schema writerSchema) {
    return readers.computeIfAbsent(writerSchema, SpecificAvroDatumProvider::readerFor);
  }

  @Override
  public Schema toSchema(T data) {
    if (data instanceof GenericContainer container) {
      return container.getSchema();
    }
    throw new IllegalArgumentException("not an Avro record: "
        + (data == null ? "null" : data.getClass().getName()));
  }

  /** Logical types as the generated classes use them (timestamps as Instant, …), also in unions. */
  private static SpecificData withConversions(SpecificData data) {
    data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    return data;
  }

  private static <T> DatumReader<T> readerFor(Schema writer) {
    if (writer.getType() != Schema.Type.RECORD) {
      return new GenericDatumReader<>(writer);
    }
    Class<?> type = DATA.getClass(writer);
    if (type == null || !SpecificRecord.class.isAssignableFrom(type)) {
      return new GenericDatumReader<>(writer);
    }
    return new SpecificDatumReader<>(writer, DATA.getSchema(type), DATA);
  }
}
