package io.tideline.quota.stream;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * JSON for the single writer's state stores (their changelogs are internal topics, not contracts):
 * ISO instants, infinite borrowing caps written as {@code Infinity}.
 */
public final class Json {

  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  private Json() {}

  public static String write(Object o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (Exception e) {
      throw new IllegalStateException("cannot write " + o.getClass().getSimpleName() + ": " + e, e);
    }
  }

  public static <T> T read(String s, Class<T> type) {
    if (s == null) {
      return null;
    }
    try {
      return MAPPER.readValue(s, type);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + type.getSimpleName() + ": " + e, e);
    }
  }

  static {
    MAPPER.getFactory().configure(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true);
  }
}
