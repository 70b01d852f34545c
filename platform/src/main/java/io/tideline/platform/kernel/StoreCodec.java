package io.tideline.platform.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Store values of the kernels' state (ADR 0008): Avro single-object encoding (a header with the
 * writer schema's fingerprint, then the binary record). Independent of the registry — a store
 * restores whatever happened to the registry — and evolvable: a value written with a released
 * older version of its record ({@code avro-history/<Record>/v<N>.avsc}, packaged with the
 * contracts) is read with that version as the writer schema.
 */
public final class StoreCodec {

  private static final Map<Class<?>, BinaryMessageDecoder<?>> DECODERS =
      new ConcurrentHashMap<>();
  private static final Map<Class<?>, BinaryMessageEncoder<?>> ENCODERS =
      new ConcurrentHashMap<>();

  private StoreCodec() {}

  /** The value's bytes. */
  public static byte[] encode(SpecificRecord value) {
    try {
      @SuppressWarnings("unchecked")
      BinaryMessageEncoder<SpecificRecord> enc = (BinaryMessageEncoder<SpecificRecord>)
          ENCODERS.computeIfAbsent(value.getClass(),
              c -> new BinaryMessageEncoder<>(SpecificData.get(), value.getSchema()));
      ByteBuffer b = enc.encode(value);
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code type} record {@code bytes} hold. */
  @SuppressWarnings("unchecked")
  public static <T extends SpecificRecord> T decode(Class<T> type, byte[] bytes) {
    BinaryMessageDecoder<T> d = (BinaryMessageDecoder<T>) DECODERS.computeIfAbsent(type,
        StoreCodec::decoder);
    try {
      return d.decode(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("not a stored " + type.getSimpleName(), e);
    }
  }

  private static BinaryMessageDecoder<?> decoder(Class<?> type) {
    Schema current = SpecificData.get().getSchema(type);
    BinaryMessageDecoder<?> d = new BinaryMessageDecoder<>(SpecificData.get(), current);
    for (int v = 1; ; v++) {
      String path = "/avro-history/" + current.getName() + "/v" + v + ".avsc";
      try (InputStream in = StoreCodec.class.getResourceAsStream(path)) {
        if (in == null) {
          break;
        }
        d.addSchema(new Schema.Parser().parse(in));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return d;
  }
}
