package io.tideline.simulator.parity;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.platform.security.ProducerStamp;
import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.preemption.kernel.PreemptionPolicy;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.forecaster.topology.ForecastMeters;
import io.tideline.forecaster.topology.ForecastSerdes;
import io.tideline.forecaster.topology.ForecastTopology;
import io.tideline.core.scheduling.PlacementPolicy;
import io.tideline.placement.ledger.PlacementMeters;
import io.tideline.placement.ledger.PlacementTopology;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import io.tideline.preemption.view.PreemptionTopology;
import io.tideline.quota.config.QuotaPolicy;
import io.tideline.quota.stream.QuotaListener;
import io.tideline.quota.stream.QuotaTopology;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * The services' own topologies — {@link PlacementTopology}, {@link PreemptionTopology},
 * {@link QuotaTopology}, {@link ForecastTopology}, the static factories each service's Quarkus producer calls — running in
 * Kafka Streams on a real broker and registry, with the services' stream settings
 * ({@code exactly_once_v2}, the same commit interval as {@code application.properties}). Each runs
 * under its own application id (its consumer group, which the twin's lockstep waits for).
 */
final class ServiceApps implements AutoCloseable {

  private final Map<String, KafkaStreams> apps = new LinkedHashMap<>();
  private final List<Path> stateDirs = new ArrayList<>();

  /** Creates every catalogued topic with its partitions (what the services' provisioner does). */
  static void createTopics(TidelineInfra infra) {
    List<String> specs = new ArrayList<>();
    for (TopicSpec t : TopicCatalogue.all()) {
      specs.add(t.name() + ":" + t.partitions());
    }
    infra.broker().createTopics(specs.toArray(String[]::new));
  }

  /**
   * Starts placement, preemption, quota and (when {@code forecast} is not null) the forecaster
   * deciding with these policies; returns once running.
   */
  static ServiceApps start(TidelineInfra infra, PlacementPolicy placement,
      PreemptionPolicy preemption, QuotaPolicy quota, ForecastKernelConfig forecast)
      throws IOException, InterruptedException {
    Map<String, Object> serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
    ServiceApps s = new ServiceApps();
    try {
      s.run(infra, "placement", PlacementTopology.build(placement, serde,
          new PlacementMeters(new SimpleMeterRegistry())));
      s.run(infra, "preemption", PreemptionTopology.build(preemption, serde));
      s.run(infra, "quota", QuotaTopology.build(quota, serde, QuotaListener.NONE));
      if (forecast != null) {
        s.run(infra, "forecaster", ForecastTopology.build(
            new ForecastSettings("forecaster-svc", forecast), ForecastSerdes.fromRegistry(serde),
            new ForecastMeters(new SimpleMeterRegistry())));
      }
      s.awaitRunning(Duration.ofMinutes(3));
      return s;
    } catch (RuntimeException | IOException | InterruptedException e) {
      s.close();
      throw e;
    }
  }

  /** The application ids (consumer groups), for the lockstep. */
  List<String> groups() {
    return List.copyOf(ids);
  }

  private final List<String> ids = new ArrayList<>();
  private final Map<String, CountDownLatch> running = new LinkedHashMap<>();

  private void run(TidelineInfra infra, String name, Topology topology) throws IOException {
    String appId = KafkaBroker.unique("parity-" + name);
    Path state = Files.createTempDirectory("parity-" + name);
    stateDirs.add(state);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 2000);
    // Its records carry the service's provenance stamp, as the service's own config gives it
    // (ADR 0029): without it placement dead-letters every decision preemption sends it.
    ProducerStamp.configureStreams(p, name + "-svc");
    KafkaStreams streams = new KafkaStreams(topology, p);
    CountDownLatch up = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) {
        up.countDown();
      }
    });
    apps.put(name, streams);
    running.put(name, up);
    ids.add(appId);
    streams.start();
  }

  private void awaitRunning(Duration timeout) throws InterruptedException {
    for (Map.Entry<String, CountDownLatch> e : running.entrySet()) {
      if (!e.getValue().await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(e.getKey() + " did not reach RUNNING: "
            + apps.get(e.getKey()).state());
      }
    }
  }

  @Override
  public void close() {
    apps.values().forEach(s -> s.close(Duration.ofSeconds(20)));
    for (Path p : stateDirs) {
      try (var walk = Files.walk(p)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException e) {
        // a temp directory left behind is no failure
      }
    }
  }
}
