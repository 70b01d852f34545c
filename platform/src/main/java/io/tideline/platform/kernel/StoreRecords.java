package io.tideline.platform.kernel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * The bytes of a kernel's state-store values: plain Avro binary of the record's current schema
 * (the records live under {@code schemas/src/main/avro/state}, covered by the compatibility check).
 * Classes are resolved with the class loader of the generated records, not Avro's own (which in
 * Quarkus may be another copy), with the logical-type conversions they use, as the topic serdes
 * ({@code SpecificAvroDatumProvider}) do.
 */
public final class StoreRecords {

  private StoreRecords() {}

  /** The record's Avro binary. */
  public static byte[] encode(SpecificRecord record) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(256);
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new SpecificDatumWriter<SpecificRecord>(record.getSchema(), data(record.getClass()))
          .write(record, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode " + record.getSchema().getName(), e);
    }
  }

  /** A record of {@code type} from what {@link #encode} wrote. */
  public static <T extends SpecificRecord> T decode(Class<T> type, byte[] bytes) {
    Schema schema = schemaOf(type);
    try {
      return new SpecificDatumReader<T>(schema, schema, data(type))
          .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("could not decode a stored " + type.getSimpleName() + ": "
          + e.getMessage(), e);
    }
  }

  private static Schema schemaOf(Class<?> type) {
    try {
      return (Schema) type.getField("SCHEMA$").get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type + " is not a generated Avro record", e);
    }
  }

  /** One model for all records: their class loader, with the logical types they use. */
  private static final SpecificData DATA = withConversions(
      new SpecificData(io.tideline.events.Contracts.class.getClassLoader()));

  private static SpecificData data(Class<?> type) {
    return DATA;
  }

  private static SpecificData withConversions(SpecificData data) {
    data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    return data;
  }
}
