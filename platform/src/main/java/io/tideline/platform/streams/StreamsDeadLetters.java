package io.tideline.platform.streams;

import io.tideline.platform.security.ProducerStamp;
import io.tideline.events.DeadLetter;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.Clip;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.jboss.logging.Logger;

/**
 * The dead-letter writer of the Kafka Streams exception handlers ({@link
 * DeadLetterDeserializationHandler}, {@link DeadLetterProcessingHandler}, {@link
 * DeadLetterProductionHandler}): one idempotent producer per application, outside the task's
 * transaction (a handler runs where the transaction may be failing), writing the platform's
 * {@link DeadLetter} envelope to {@code <topic>.dlq} when the catalogue has that topic, else to
 * {@value #FALLBACK} (internal topics, the ledgers' input logs). A letter is written and
 * acknowledged before the handler lets the engine go on, so the record is never just dropped;
 * if it cannot be written, the handler fails the engine (health goes DOWN) instead.
 *
 * <p>Settings come from the Streams properties the handlers are configured with: the client
 * settings of the application ({@code bootstrap.servers}, {@code security.*}, {@code sasl.*},
 * {@code ssl.*}) and {@code tideline.registry.url}, {@code tideline.registry.auto-register},
 * which the platform's {@code META-INF/microprofile-config.properties} forwards as
 * {@code kafka-streams.tideline.*} for every Streams service.
 */
final class StreamsDeadLetters {

  /** Where letters of records from topics without a catalogued {@code .dlq} go. */
  static final String FALLBACK = "streams.dlq";

  /** Kinds of failure, as written in {@link DeadLetter#getErrorClass()}. */
  static final String PROCESSING = "PROCESSING";
  static final String PRODUCTION = "PRODUCTION";

  private static final Logger LOG = Logger.getLogger(StreamsDeadLetters.class);
  private static final Map<String, StreamsDeadLetters> BY_APPLICATION = new ConcurrentHashMap<>();

  private final String service;
  private final KafkaProducer<byte[], Object> producer;

  private StreamsDeadLetters(String service, KafkaProducer<byte[], Object> producer) {
    this.service = service;
    this.producer = producer;
  }

  /** The writer of the application the {@code configs} belong to (one per application id). */
  static StreamsDeadLetters of(Map<String, ?> configs) {
    String app = String.valueOf(configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
    return BY_APPLICATION.computeIfAbsent(app, a -> create(a, configs));
  }

  private static StreamsDeadLetters create(String app, Map<String, ?> configs) {
    Map<String, Object> p = new HashMap<>();
    for (Map.Entry<String, ?> e : configs.entrySet()) {
      String k = e.getKey();
      if (k.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) || k.startsWith("security.")
          || k.startsWith("sasl.") || k.startsWith("ssl.")) {
        p.put(k, e.getValue());
      }
    }
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, app + "-streams-dead-letters");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    Object registry = configs.get("tideline.registry.url");
    if (registry == null) {
      throw new IllegalStateException("the dead-letter handlers of " + app
          + " need tideline.registry.url among the Streams properties");
    }
    Object auto = configs.get("tideline.registry.auto-register");
    Serializer<Object> values = AvroSerdes.valueSerializer(AvroSerdes.serdeConfig(
        String.valueOf(registry), auto == null || Boolean.parseBoolean(String.valueOf(auto))));
    Object service = configs.get("tideline.service");
    ProducerStamp.configure(p, service == null ? app : String.valueOf(service)); // ADR 0029
    KafkaProducer<byte[], Object> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), values);
    Runtime.getRuntime().addShutdownHook(new Thread(producer::close, app + "-dlq-close"));
    return new StreamsDeadLetters(service == null ? app : String.valueOf(service), producer);
  }

  /** The dead-letter topic for a record read from {@code topic}. */
  static String dlqOf(String topic) {
    if (topic == null) {
      return FALLBACK;
    }
    String dlq = topic + ".dlq";
    return TopicCatalogue.find(dlq).isPresent() ? dlq : FALLBACK;
  }

  /**
   * Writes the letter of the record {@code context} describes and waits for the broker; returns
   * whether it was written.
   */
  boolean park(ErrorHandlerContext context, byte[] key, byte[] value, String errorClass,
      String reason) {
    String topic = context == null ? null : context.topic();
    DeadLetter letter = DeadLetters.envelope(topic == null ? "unknown" : topic,
        context == null ? -1 : context.partition(), context == null ? -1 : context.offset(), key,
        value, errorClass, Clip.reason(reason, 2_000), service,
        context == null ? 0 : context.timestamp());
    String dlq = dlqOf(topic);
    try {
      producer.send(new ProducerRecord<>(dlq, key, letter)).get(30, TimeUnit.SECONDS);
      LOG.warnf("dead-lettered %s-%d@%d on %s (%s): %s", topic, letter.getPartition(),
          letter.getOffset(), dlq, errorClass, letter.getError());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.errorf(e, "could not dead-letter %s-%d@%d (%s: %s): the engine stops rather than lose it",
          topic, letter.getPartition(), letter.getOffset(), errorClass, letter.getError());
      return false;
    }
  }

  /** What went wrong, for the letter: the exception and its root cause, and where. */
  static String describe(Exception e, ErrorHandlerContext context) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String where = context == null || context.processorNodeId() == null ? ""
        : " in processor " + context.processorNodeId();
    return e.getClass().getSimpleName() + where + ": " + Clip.reason(e.getMessage(), 500)
        + (root == e ? "" : " (caused by " + root.getClass().getSimpleName() + ": "
            + Clip.reason(root.getMessage(), 500) + ")");
  }
}
