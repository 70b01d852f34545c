package io.tideline.platform.streams;

import java.util.Map;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * {@code processing.exception.handler} of every Tideline Streams service (Kafka 4.1, KIP-1033):
 * any exception a processor throws while handling one record dead-letters that record — its
 * source bytes as consumed, where it came from, the exception and the processor — and the engine
 * goes on with the next. One poison record never stops a service again (issue #16 finding 1).
 * If the letter cannot be written the engine fails instead: nothing is dropped unseen.
 *
 * <p>What a processor changed in its stores before it threw stays; a processor that must stay
 * all-or-nothing checks before it writes (the platform's input checks run first for that).
 */
public final class DeadLetterProcessingHandler implements ProcessingExceptionHandler {

  private StreamsDeadLetters letters;

  @Override
  public void configure(Map<String, ?> configs) {
    letters = StreamsDeadLetters.of(configs);
  }

  @Override
  public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record,
      Exception exception) {
    boolean parked = letters.park(context, context.sourceRawKey(), context.sourceRawValue(),
        StreamsDeadLetters.PROCESSING, "processing failed: "
            + StreamsDeadLetters.describe(exception, context));
    return parked ? ProcessingHandlerResponse.CONTINUE : ProcessingHandlerResponse.FAIL;
  }
}
