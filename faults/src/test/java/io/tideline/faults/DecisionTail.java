package io.tideline.faults;

import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.QuotaVerdict;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.KafkaBroker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Follows {@code quota.verdicts} and {@code placement.decisions} from their current end (no
 * consumer group, read_committed) and notes, for every job whose id starts with a prefix, when
 * (this JVM's {@link System#nanoTime}) its first verdict and first PLACED decision were seen, and
 * how many of each it got.
 */
final class DecisionTail implements AutoCloseable {

  private static final List<String> TOPICS = List.of("quota.verdicts", "placement.decisions");

  private final String prefix;
  private final Map<String, Long> verdictSeen = new ConcurrentHashMap<>();
  private final Map<String, Long> placedSeen = new ConcurrentHashMap<>();
  private final Map<String, Integer> verdicts = new ConcurrentHashMap<>();
  private final Map<String, Integer> decisions = new ConcurrentHashMap<>();
  private final Map<String, Long> verdictTickLag = new ConcurrentHashMap<>();
  private final Map<String, Long> placedTickLag = new ConcurrentHashMap<>();
  private final Map<Long, Integer> verdictTicks = new ConcurrentHashMap<>();
  private final Map<Long, Integer> placedTicks = new ConcurrentHashMap<>();
  private final AtomicLong lastPlaced = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile RuntimeException failure;

  DecisionTail(String bootstrap, String registry, String prefix) {
    this.prefix = prefix;
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("faults-tail"));
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    List<TopicPartition> parts = TOPICS.stream().flatMap(t -> consumer.partitionsFor(t).stream()
        .map(i -> new TopicPartition(t, i.partition()))).toList();
    consumer.assign(parts);
    consumer.seekToEnd(parts);
    parts.forEach(consumer::position); // resolve the end now: what is written next is seen
    Deserializer<Object> avro = AvroSerdes.valueDeserializer(AvroSerdes.serdeConfig(registry,
        true));
    thread = new Thread(() -> {
      try (consumer) {
        while (running) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            long now = System.nanoTime();
            Object v;
            try {
              v = r.value() == null ? null : avro.deserialize(r.topic(), r.value());
            } catch (RuntimeException e) {
              continue;
            }
            long wall = System.currentTimeMillis();
            if (v instanceof QuotaVerdict q && q.getJobId().startsWith(prefix)) {
              if (verdictSeen.putIfAbsent(q.getJobId(), now) == null) {
                verdictTickLag.put(q.getJobId(), wall - q.getDecidedAt().toEpochMilli());
                verdictTicks.merge(q.getDecidedAt().toEpochMilli(), 1, Integer::sum);
              }
              verdicts.merge(q.getJobId(), 1, Integer::sum);
            } else if (v instanceof PlacementDecision d && d.getJobId().startsWith(prefix)) {
              decisions.merge(d.getJobId(), 1, Integer::sum);
              if (d.getOutcome() == PlacementOutcome.PLACED
                  && placedSeen.putIfAbsent(d.getJobId(), now) == null) {
                lastPlaced.accumulateAndGet(now, Math::max);
                placedTickLag.put(d.getJobId(), wall - d.getDecidedAt().toEpochMilli());
                placedTicks.merge(d.getDecidedAt().toEpochMilli(), 1, Integer::sum);
              }
            }
          }
        }
      } catch (RuntimeException e) {
        failure = e;
      }
    }, "faults-decision-tail");
    thread.setDaemon(true);
    thread.start();
  }

  /** First verdict seen, per job. */
  Map<String, Long> verdicts() {
    check();
    return Map.copyOf(verdictSeen);
  }

  /** First PLACED decision seen, per job. */
  Map<String, Long> placed() {
    check();
    return Map.copyOf(placedSeen);
  }

  /** Verdicts per job. */
  Map<String, Integer> verdictCounts() {
    return Map.copyOf(verdicts);
  }

  /** Placement decisions (any outcome) per job. */
  Map<String, Integer> decisionCounts() {
    return Map.copyOf(decisions);
  }

  /**
   * Milliseconds from the tick that decided each job's first verdict (its {@code decidedAt}: the
   * ticks follow the wall clock) to when the verdict was seen here.
   */
  Map<String, Long> verdictTickLag() {
    return Map.copyOf(verdictTickLag);
  }

  /** As {@link #verdictTickLag} for the first PLACED decision. */
  Map<String, Long> placedTickLag() {
    return Map.copyOf(placedTickLag);
  }

  /** How many first verdicts each tick (by its time, epoch ms) decided. */
  Map<Long, Integer> verdictTicks() {
    return Map.copyOf(verdictTicks);
  }

  /** How many first placements each tick (by its time, epoch ms) decided. */
  Map<Long, Integer> placedTicks() {
    return Map.copyOf(placedTicks);
  }

  /** When the last job's first PLACED decision was seen. */
  long lastPlacedNanos() {
    return lastPlaced.get();
  }

  private void check() {
    if (failure != null) {
      throw new AssertionError("the decision tail failed: " + failure, failure);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(10_000);
  }
}
