package io.tideline.platform.streams;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * {@code deserialization.exception.handler} of every Tideline Streams service: a record the
 * engine cannot deserialize (our topologies read inputs as bytes, so this is an internal topic's
 * record, or a timestamp extractor's failure) is dead-lettered whole with the reason, and the
 * engine goes on. If the letter cannot be written the engine fails: nothing is dropped unseen.
 */
public final class DeadLetterDeserializationHandler implements DeserializationExceptionHandler {

  private StreamsDeadLetters letters;

  @Override
  public void configure(Map<String, ?> configs) {
    letters = StreamsDeadLetters.of(configs);
  }

  @Override
  public DeserializationHandlerResponse handle(ErrorHandlerContext context,
      ConsumerRecord<byte[], byte[]> record, Exception exception) {
    boolean parked = letters.park(context, record.key(), record.value(), "DESERIALIZATION",
        "the engine could not deserialize the record: "
            + StreamsDeadLetters.describe(exception, context));
    return parked ? DeserializationHandlerResponse.CONTINUE : DeserializationHandlerResponse.FAIL;
  }
}
