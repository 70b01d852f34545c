package io.tideline.forecaster.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tideline.core.forecast.kernel.ForecastKernel;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.forecaster.config.ForecastSettings;
import io.tideline.platform.kernel.forecast.ForecastHost;
import io.tideline.platform.ledger.Out;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.telemetry.SampleBatches;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.RegistryFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The forecaster's kernel task restarted with a node's scrape waiting in its inbox (ADR 0040):
 * the batch is kept once, under its first GPU's sequence, and a task re-initialised from the
 * stores gives its GPUs the sequences that follow — it then publishes and stores exactly what an
 * uninterrupted task does.
 */
class KernelRestoreTest {

  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();

  static final Instant T0 = Instant.parse("2026-11-09T08:00:00Z");
  static final String CLUSTER = "default";

  final ForecastSettings settings = ForecastSettings.defaults(CLUSTER, "forecaster-test",
      ZoneOffset.UTC);
  final ForecastSerdes serdes = ForecastSerdes.fromRegistry(
      AvroSerdes.serdeConfig(registry.url(), true));
  long offset;

  /** A kernel task on its own in-memory stores, re-initialisable like a restarted task. */
  final class Task {
    final MockProcessorContext<byte[], Out> context = new MockProcessorContext<>();
    KernelProcessor processor;

    Task() {
      for (String table : ForecastState.TABLES) {
        add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(ForecastStores.of(table)),
            Serdes.String(), serdes.storeValues()).withLoggingDisabled().build());
      }
      add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(ForecastStores.INBOX),
          Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build());
      start();
    }

    private void add(StateStore store) {
      store.init(context.getStateStoreContext(), store);
      context.addStateStore(store);
    }

    /** A new processor on the same stores: what a restarted task reads its state from. */
    void start() {
      processor = new KernelProcessor(new ForecastKernel(settings.kernel()),
          new ForecastHost(settings.kernel()), serdes, settings.service(),
          new ForecastMeters(new SimpleMeterRegistry()));
      processor.init(context);
    }

    void offer(String topic, String key, SpecificRecord value, Instant at, long sourceOffset) {
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      byte[] envelope = Envelopes.accepted(serdes.writer(), Envelopes.of(topic, 0, sourceOffset, k,
          serdes.writer().serialize(topic, value))).value();
      processor.process(new Record<>(k, envelope, at.toEpochMilli()));
    }

    /** Everything forwarded since the last call, as text. */
    List<String> forwarded() {
      List<String> out = new ArrayList<>();
      context.forwarded().forEach(f -> out.add(f.record().value().topic() + " "
          + Base64.getEncoder().encodeToString(f.record().value().value()) + " @"
          + f.record().timestamp()));
      context.resetForwards();
      return out;
    }

    /** Every store's entries, as text. */
    Map<String, Map<String, String>> stores() {
      Map<String, Map<String, String>> out = new TreeMap<>();
      for (String name : ForecastStores.all()) {
        Map<String, String> rows = new TreeMap<>();
        KeyValueStore<String, Object> store = context.getStateStore(name);
        try (var it = store.all()) {
          it.forEachRemaining(kv -> rows.put(kv.key, kv.value instanceof byte[] b
              ? Base64.getEncoder().encodeToString(b) : String.valueOf(kv.value)));
        }
        out.put(name, rows);
      }
      return out;
    }
  }

  /** Minute {@code m}: a tick at its start, then both nodes' scrapes at second 30. */
  void minute(List<Task> tasks, int m) {
    Instant tick = T0.plus(Duration.ofMinutes(m));
    long o = offset++;
    for (Task t : tasks) {
      t.offer(TopicCatalogue.CLUSTER_CLOCK, CLUSTER, ClockTick.newBuilder().setCluster(CLUSTER)
          .setTime(tick).setSequence(m + 1L).setIntervalMillis(60_000)
          .setSource(ClockSource.SIMULATED).build(), tick, o);
    }
    Instant at = tick.plusSeconds(30);
    for (int n = 0; n < 2; n++) {
      List<GpuSample> node = new ArrayList<>();
      for (int g = 0; g < 8; g++) {
        String service = g < 3 + m / 8 ? "chat" : null;
        node.add(GpuSample.newBuilder().setGpuId("n" + n + "/" + g).setCluster(CLUSTER)
            .setNodeId("n" + n).setGpuIndex(g).setSampledAt(at).setState(SampleState.OK)
            .setUtilizationPct(50.0).setServiceId(service)
            .setJobId(service == null ? null : "chat-" + n).setSource(SampleSource.SIMULATOR)
            .build());
      }
      long bo = offset++;
      for (Task t : tasks) {
        t.offer(TopicCatalogue.GPU_TELEMETRY_BATCHES, "n" + n,
            SampleBatches.ofScrape(node, 64).get(0), at, bo);
      }
    }
  }

  @Test
  void shouldRestoreAWaitingBatchAsItsGpusAndDecideAsAnUninterruptedTask() {
    Task restarted = new Task();
    Task uninterrupted = new Task();
    List<Task> both = List.of(restarted, uninterrupted);
    for (int m = 0; m < 10; m++) {
      minute(both, m);
    }
    // minute 9's two scrapes wait for the next tick: 16 GPUs, kept as 2 inbox entries
    assertThat(restarted.stores().get(ForecastStores.INBOX)).hasSize(2);
    restarted.start();
    restarted.forwarded();
    uninterrupted.forwarded();

    for (int m = 10; m < 22; m++) {
      minute(both, m);
    }

    List<String> published = uninterrupted.forwarded();
    assertThat(published).anyMatch(f -> f.startsWith(TopicCatalogue.FORECAST_SLOTS));
    assertThat(restarted.forwarded()).isEqualTo(published);
    assertThat(restarted.stores()).isEqualTo(uninterrupted.stores());
  }
}
