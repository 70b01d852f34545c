package io.tideline.platform.streams;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;

/**
 * {@code production.exception.handler} of every Tideline Streams service: an output that cannot
 * be serialized dead-letters the input record that produced it, with the output's topic and the
 * reason, and the engine goes on. An output the broker or the producer refuses for good (a
 * record too large, an unknown topic) is dead-lettered the same way; without exactly-once the
 * engine goes on, with it the refused write has already poisoned the transaction, so the engine
 * stops (health DOWN) rather than commit around a lost record — which is why every input is
 * bounded before any processor sees it (ADR 0012). Retriable errors are retried. If the letter
 * cannot be written the engine fails.
 */
public final class DeadLetterProductionHandler implements ProductionExceptionHandler {

  private StreamsDeadLetters letters;
  private boolean exactlyOnce;

  @Override
  public void configure(Map<String, ?> configs) {
    letters = StreamsDeadLetters.of(configs);
    Object guarantee = configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG);
    exactlyOnce = guarantee != null && String.valueOf(guarantee).startsWith("exactly_once");
  }

  @Override
  public ProductionExceptionHandlerResponse handle(ErrorHandlerContext context,
      ProducerRecord<byte[], byte[]> record, Exception exception) {
    if (exception instanceof RetriableException) {
      return ProductionExceptionHandlerResponse.RETRY;
    }
    ProductionExceptionHandlerResponse r = park(context, "could not write to " + record.topic()
        + ": " + StreamsDeadLetters.describe(exception, context));
    return exactlyOnce ? ProductionExceptionHandlerResponse.FAIL : r;
  }

  @Override
  @SuppressWarnings("rawtypes")
  public ProductionExceptionHandlerResponse handleSerializationException(
      ErrorHandlerContext context, ProducerRecord record, Exception exception,
      SerializationExceptionOrigin origin) {
    return park(context, "could not serialize the " + origin.name().toLowerCase()
        + " for " + record.topic() + ": " + StreamsDeadLetters.describe(exception, context));
  }

  private ProductionExceptionHandlerResponse park(ErrorHandlerContext context, String reason) {
    boolean parked = letters.park(context, context == null ? null : context.sourceRawKey(),
        context == null ? null : context.sourceRawValue(), StreamsDeadLetters.PRODUCTION, reason);
    return parked ? ProductionExceptionHandlerResponse.CONTINUE
        : ProductionExceptionHandlerResponse.FAIL;
  }
}
