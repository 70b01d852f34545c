package io.tideline.forecaster.topology;

import io.tideline.events.SlotClassMap;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Stores the slot map in its state store as plain Avro binary of the current schema. Classes are
 * resolved with the class loader of {@code io.tideline.events}, not Avro's own (which in Quarkus
 * may be another copy), as {@code SpecificAvroDatumProvider} does for the topics.
 */
public final class StoredSlotMaps {

  private static final SpecificData DATA = new SpecificData(SlotClassMap.class.getClassLoader());

  private StoredSlotMaps() {}

  static byte[] encode(SlotClassMap map) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new SpecificDatumWriter<SlotClassMap>(SlotClassMap.getClassSchema(), DATA)
          .write(map, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode the slot map", e);
    }
  }

  /** Decodes what the slot-map store holds. */
  public static SlotClassMap decode(byte[] bytes) {
    try {
      return new SpecificDatumReader<SlotClassMap>(SlotClassMap.getClassSchema(),
          SlotClassMap.getClassSchema(), DATA)
          .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    } catch (IOException e) {
      throw new UncheckedIOException("could not decode the stored slot map", e);
    }
  }
}
