package io.tideline.placement.ledger;

import io.apicurio.registry.serde.avro.AvroDatumProvider;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * The platform's specific-record datum provider plus the timestamp conversions, so a nullable
 * {@code timestamp-millis} (a union such as {@code QueuePosition.estimatedStart}) is written and
 * read as an {@code Instant}. Without them Avro cannot resolve the union branch of an
 * {@code Instant} ("Unknown datum type java.time.Instant"). Same class-loader rule as the
 * platform's provider.
 */
public class LogicalTypeDatumProvider<T> implements AvroDatumProvider<T> {

  private static final SpecificData DATA =
      new SpecificData(io.tideline.events.Contracts.class.getClassLoader());

  static {
    DATA.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    DATA.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
  }

  private final ConcurrentHashMap<Schema, DatumReader<T>> readers = new ConcurrentHashMap<>();

  /** {@code base} with this provider in place of the platform's. */
  public static Map<String, Object> config(Map<String, Object> base) {
    Map<String, Object> c = new HashMap<>(base);
    c.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, LogicalTypeDatumProvider.class);
    return c;
  }

  @Override
  public DatumWriter<T> createDatumWriter(T data, Schema schema) {
    return data instanceof SpecificRecord
        ? new SpecificDatumWriter<>(schema, DATA)
        : new GenericDatumWriter<>(schema);
  }

  @Override
  public DatumReader<T> createDatumReader(Schema writerSchema) {
    return readers.computeIfAbsent(writerSchema, LogicalTypeDatumProvider::readerFor);
  }

  @Override
  public Schema toSchema(T data) {
    if (data instanceof GenericContainer container) {
      return container.getSchema();
    }
    throw new IllegalArgumentException("not an Avro record: "
        + (data == null ? "null" : data.getClass().getName()));
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
