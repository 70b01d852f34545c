package io.tideline.placement.ledger;

import io.tideline.core.scheduling.PlacementPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.platform.serde.AvroSerdes;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Runs the placement topology on its own, as a separate JVM the crash test can kill without any
 * clean shutdown: {@code LedgerRunner <bootstrap> <registryUrl> <applicationId> <stateDir>}.
 * Prints {@code RUNNING} once Streams is running.
 */
public final class LedgerRunner {

  private LedgerRunner() {}

  public static void main(String[] args) throws Exception {
    KafkaStreams streams = start(args[0], args[1], args[2], args[3], PlacementPolicy.defaults("c1"));
    new CountDownLatch(1).await();
    streams.close();
  }

  /** Starts the topology with exactly_once_v2 and returns once it runs. */
  static KafkaStreams start(String bootstrap, String registryUrl, String appId, String stateDir,
      PlacementPolicy policy) throws InterruptedException {
    return start(bootstrap, registryUrl, appId, stateDir, policy,
        new PlacementMeters(new SimpleMeterRegistry()));
  }

  static KafkaStreams start(String bootstrap, String registryUrl, String appId, String stateDir,
      PlacementPolicy policy, PlacementMeters meters) throws InterruptedException {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    KafkaStreams streams = new KafkaStreams(PlacementTopology.build(policy,
        AvroSerdes.serdeConfig(registryUrl, true), meters),
        p);
    CountDownLatch running = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) {
        running.countDown();
      }
    });
    streams.start();
    running.await();
    System.out.println("RUNNING");
    System.out.flush();
    return streams;
  }
}
