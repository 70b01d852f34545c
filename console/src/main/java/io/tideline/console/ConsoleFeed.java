package io.tideline.console;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import io.tideline.console.view.ConsoleState;
import io.tideline.platform.serde.AvroSerdes;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.jboss.logging.Logger;

/**
 * The console's only input: one consumer thread reading {@link ConsoleState#TOPICS} from their
 * beginning (partitions assigned directly, nothing committed: the views are a fold of the retained
 * log, rebuilt at every start, ADR 0032) and folding each record into the state. A record it
 * cannot decode is counted, logged with the reason and shown on the pages; the console reads on.
 * It never writes to Kafka and reads no service's private state.
 */
@ApplicationScoped
public class ConsoleFeed {

  private static final Logger LOG = Logger.getLogger(ConsoleFeed.class);

  private final ConsoleConfig config;
  private final Map<String, Object> kafka;
  private final AvroSerdes serdes;
  private final ConsoleMeters meters;
  private final ConsoleState state;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile boolean running;
  private Thread thread;

  public ConsoleFeed(ConsoleConfig config,
      @Identifier("default-kafka-broker") Map<String, Object> kafka, AvroSerdes serdes,
      ConsoleMeters meters) {
    this.config = config;
    this.kafka = kafka;
    this.serdes = serdes;
    this.meters = meters;
    this.state = new ConsoleState(config.bucket(), config.window(),
        (job, millis) -> meters.onlineWait(millis));
  }

  /** Reads the state under its lock: every page and the live stream go through here. */
  public <T> T read(Function<ConsoleState, T> view) {
    synchronized (state) {
      return view.apply(state);
    }
  }

  // After the platform's TopicProvisioner (default priority), as the other services' consumers.
  void onStart(@Observes @Priority(Interceptor.Priority.APPLICATION + 900) StartupEvent ev) {
    if (!config.feedEnabled()) {
      return;
    }
    running = true;
    thread = new Thread(this::run, "console-feed");
    thread.setDaemon(true);
    thread.start();
  }

  void onStop(@Observes ShutdownEvent ev) {
    running = false;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    if (thread != null) {
      try {
        thread.join(Duration.ofSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    Map<String, Object> props = new HashMap<>();
    kafka.forEach((k, v) -> {
      if (!k.startsWith("apicurio") && !k.startsWith("mp.")) {
        props.put(k, v);
      }
    });
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "console");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Deserializer<Object> values = serdes.valueDeserializer();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer = c;
      Set<TopicPartition> assigned = new HashSet<>();
      long recheckAt = 0;
      while (running) {
        if (System.nanoTime() - recheckAt >= 0) {
          assign(c, assigned);
          recheckAt = System.nanoTime() + config.topicRecheck().toNanos();
        }
        if (assigned.isEmpty()) {
          sleepQuietly(config.pollTimeout());
          continue;
        }
        var records = c.poll(config.pollTimeout());
        if (records.isEmpty()) {
          continue;
        }
        synchronized (state) {
          for (ConsumerRecord<byte[], byte[]> r : records) {
            fold(r, values);
          }
          meters.appliedPreemptions(state.preemptions().applied());
        }
      }
    } catch (WakeupException stopping) {
      // shut down
    } catch (RuntimeException e) {
      LOG.errorf(e, "the console's feed stopped: %s", e.getMessage());
    }
  }

  private void fold(ConsumerRecord<byte[], byte[]> r, Deserializer<Object> values) {
    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    Object value = null;
    String error = null;
    if (r.value() != null) {
      try {
        value = values.deserialize(r.topic(), r.headers(), r.value());
      } catch (RuntimeException e) {
        error = String.valueOf(e.getMessage());
        LOG.warnf("console: %s-%d@%d is not a record it can read (%s); shown as undecodable",
            r.topic(), r.partition(), r.offset(), error);
      }
    }
    meters.record(r.topic(), error == null);
    state.accept(r.topic(), key, r.timestamp(), value, error);
  }

  /** Adds the partitions of the console's topics that exist now, each read from its beginning. */
  private static void assign(KafkaConsumer<byte[], byte[]> c, Set<TopicPartition> assigned) {
    Map<String, List<PartitionInfo>> topics = c.listTopics();
    List<TopicPartition> fresh = new ArrayList<>();
    for (String t : ConsoleState.TOPICS) {
      for (PartitionInfo p : topics.getOrDefault(t, List.of())) {
        TopicPartition tp = new TopicPartition(t, p.partition());
        if (!assigned.contains(tp)) {
          fresh.add(tp);
        }
      }
    }
    if (!fresh.isEmpty()) {
      assigned.addAll(fresh);
      c.assign(assigned);
      c.seekToBeginning(fresh);
    }
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
