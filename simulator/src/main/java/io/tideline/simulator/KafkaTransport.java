package io.tideline.simulator;

import io.tideline.platform.kernel.HostRecord;
import io.tideline.platform.lockstep.Quiescence;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.security.Identity;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.platform.topics.TopicCatalogue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The through-Kafka transport: the world's records go to the real topics (through the registry,
 * in the Confluent wire format) and the real services decide; {@link #settle} waits until every
 * service's consumer group has committed the last stable offset of every partition it reads
 * ({@link Quiescence}) — the lockstep that makes the services see, before each tick, exactly the
 * inputs the in-process twin delivers. Reading is {@code read_committed}, from the moment the
 * transport starts.
 */
public final class KafkaTransport implements Transport {

  /**
   * Where the services are.
   *
   * @param bootstrap broker
   * @param registryUrl schema registry
   * @param groups the services' consumer groups (Streams application ids) to wait for
   * @param settleTimeout longest wait without progress in one settle (a service that consumed
   *     nothing for this long has stopped: the run fails)
   * @param pollMillis how often to look while settling
   */
  public record Settings(String bootstrap, String registryUrl, List<String> groups,
      Duration settleTimeout, long pollMillis) {}

  private final Settings settings;
  private final LongSupplier wallMillis;
  private final KafkaProducer<String, Object> producer;
  private final KafkaConsumer<String, Object> consumer;
  private final Quiescence quiet;
  private final List<TopicPartition> observed = new ArrayList<>();
  private final List<TopicPartition> cascade = new ArrayList<>();
  private Map<TopicPartition, Long> cascadeEnds = new HashMap<>();
  private final LockstepLatency latency = new LockstepLatency();
  /** Whether records were published since the last settle, and whether one of them is a tick. */
  private boolean unsettled;
  private boolean tickPublished;
  /** The last tick settle's duration, until {@link #cascaded} attributes it; NaN after. */
  private double lastTickMillis = Double.NaN;

  /** {@code wallMillis}: the caller's clock, for the settle timeout only. */
  public KafkaTransport(Settings settings, LongSupplier wallMillis) {
    this.settings = settings;
    this.wallMillis = wallMillis;
    // Schemas are looked up by content, never registered: `up` (and a test, before this) has
    // registered every contract, and a secured registry refuses anyone else's writes (ADR 0027).
    Map<String, Object> serde = AvroSerdes.serdeConfig(settings.registryUrl(), false);
    Map<String, Object> p = new HashMap<>(serde);
    // The simulator plays several writers (ADR 0029): each record carries the identity of the
    // role that writes its topic in the catalogue.
    ProducerStamp.configure(p, Identity.SIMULATOR.user(),
        ProducerStamp.asOwners(Identity.SIMULATOR.user()));
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer = new KafkaProducer<>(p, new StringSerializer(),
        AvroSerdes.<Object>valueSerializer(serde));
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    this.consumer = new KafkaConsumer<>(c, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde));
    this.quiet = new Quiescence(settings.bootstrap());
    for (String t : World.observed()) {
      for (PartitionInfo pi : consumer.partitionsFor(t, Duration.ofSeconds(30))) {
        observed.add(new TopicPartition(t, pi.partition()));
      }
    }
    for (String t : Twin.CASCADE) {
      for (PartitionInfo pi : consumer.partitionsFor(t, Duration.ofSeconds(30))) {
        cascade.add(new TopicPartition(t, pi.partition()));
      }
    }
    consumer.assign(observed);
    consumer.seekToEnd(observed);
    observed.forEach(consumer::position); // resolve the start now, not at the first poll
    cascadeEnds = ends(cascade);
  }

  @Override
  public void publish(List<World.Timed> records) {
    for (World.Timed t : records) {
      HostRecord r = t.record();
      producer.send(new ProducerRecord<>(r.topic(), null, t.at().toEpochMilli(), r.key(),
          (Object) r.value()));
      unsettled = true;
      tickPublished |= TopicCatalogue.CLUSTER_CLOCK.equals(r.topic());
    }
  }

  @Override
  public void settle() throws InterruptedException {
    if (!unsettled) {
      // the last settle left every service with nothing to read, and the world added nothing:
      // still settled (the services publish only in answer to records, never on their own)
      latency.inputSkipped();
      return;
    }
    long t0 = System.nanoTime();
    producer.flush();
    long consumed = quiet.consumed(settings.groups());
    while (!quiet.await(settings.groups(), settings.settleTimeout(), settings.pollMillis(),
        wallMillis)) {
      // slow is fine (two weeks of a big fleet's history take minutes); stopped is not
      long now = quiet.consumed(settings.groups());
      if (now == consumed) {
        throw new IllegalStateException("the services " + settings.groups() + " consumed nothing"
            + " for " + settings.settleTimeout() + " (is one of them down?)");
      }
      consumed = now;
    }
    double millis = (System.nanoTime() - t0) / 1e6;
    if (tickPublished) {
      lastTickMillis = millis; // attributed to the hops that moved, in cascaded()
    } else {
      latency.inputSettled(millis);
    }
    unsettled = false;
    tickPublished = false;
  }

  /** The wall latency measured so far. */
  public LockstepLatency latency() {
    return latency;
  }

  @Override
  public List<HostRecord> collect() throws InterruptedException {
    Map<TopicPartition, Long> ends = ends(observed);
    List<HostRecord> out = new ArrayList<>();
    long until = wallMillis.getAsLong() + settings.settleTimeout().toMillis();
    while (observed.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
      if (wallMillis.getAsLong() > until) {
        throw new IllegalStateException("could not read the services' records to their end");
      }
      for (ConsumerRecord<String, Object> r : consumer.poll(Duration.ofMillis(50))) {
        out.add(new HostRecord(r.topic(), r.key(), (SpecificRecord) r.value()));
      }
    }
    return Transport.canonical(out);
  }

  @Override
  public boolean cascaded() throws InterruptedException {
    Map<TopicPartition, Long> now = ends(cascade);
    boolean moved = !now.equals(cascadeEnds);
    if (!Double.isNaN(lastTickMillis)) {
      // the kernels decide on ticks only (ADR 0008): what moved since the last round moved in
      // its tick settle
      Set<String> topics = new HashSet<>();
      now.forEach((tp, end) -> {
        if (!end.equals(cascadeEnds.get(tp))) {
          topics.add(tp.topic());
        }
      });
      latency.tickSettled(lastTickMillis, topics);
      lastTickMillis = Double.NaN;
    }
    cascadeEnds = now;
    return moved;
  }

  private Map<TopicPartition, Long> ends(List<TopicPartition> parts) {
    try {
      return quiet.ends(parts);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not read end offsets: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
    consumer.close(Duration.ofSeconds(5));
    quiet.close();
  }
}
