package io.tideline.platform.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.forecast.kernel.ForecastKernelConfig;
import io.tideline.core.forecast.kernel.ForecastState;
import io.tideline.core.quota.kernel.QuotaKernelConfig;
import io.tideline.core.quota.kernel.QuotaKernelState;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuAssignment;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.KernelHost;
import io.tideline.platform.kernel.forecast.ForecastKernelHost;
import io.tideline.platform.kernel.quota.QuotaHost;
import io.tideline.platform.kernel.quota.QuotaKernelHost;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * ADR 0040's equivalence rule, on the kernel hosts the twin runs (the services run the same
 * mapping): a node's batch gives exactly the kernel state and effects its GPUs' samples give when
 * they arrive back to back, in the batch's order — for the forecast kernel and the quota kernel.
 */
class SampleBatchEquivalenceTest {

  static final String CLUSTER = "c1";
  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  static final int NODES = 3;
  static final int GPUS = 8;
  static final int MINUTES = 75;
  static final String DEFINITION = """
      version: "batch-1"
      fleetGpus: 24
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 16}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 8,
           preemptionGrants: [ONLINE_INFERENCE, CRITICAL_JOBS]}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 4,
           lendLimitGpus: 0, services: [chat]}
        - {path: acme/search/ranking/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4}
        - {path: acme/research, kind: BUSINESS_LINE, guaranteedGpus: 8, preemptionGrants: []}
        - {path: acme/research/llm, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/research/llm/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 8}
      """;

  /** One GPU of the scenario's fleet at minute {@code m}: who uses it and how much. */
  static GpuSample reading(int node, int gpu, int m) {
    Instant at = T0.plusSeconds(20).plus(Duration.ofMinutes(m));
    boolean stale = node == 1 && gpu == 2 && m % 7 == 3;
    boolean chat = node == 0 && gpu < 2 + (m / 25);
    String job = chat ? "chat-job" : node == 2 && gpu < 4 ? "idle"
        : node == 0 && gpu >= 4 ? "busy" : null;
    Double pct = stale ? null : node == 2 ? 1.0 + (gpu + m) % 3 : 40.0 + (m + gpu) % 50;
    return GpuSample.newBuilder().setGpuId("n" + node + "/" + gpu).setCluster(CLUSTER)
        .setNodeId("n" + node).setGpuIndex(gpu).setModel("H100").setSampledAt(at)
        .setState(stale ? SampleState.STALE : SampleState.OK).setUtilizationPct(pct)
        .setServiceId(chat ? "chat" : null).setJobId(job).setSource(SampleSource.SIMULATOR)
        .build();
  }

  /** The scenario's records: jobs, then per minute every node's GPUs and a tick. */
  static List<Offered> scenario(boolean batched) {
    List<Offered> out = new ArrayList<>();
    out.add(new Offered(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("busy")
        .tenant("research", "llm").gpus(4).at(T0).build()));
    out.add(new Offered(TopicCatalogue.JOBS_SUBMITTED, JobSubmissions.training("idle")
        .tenant("research", "llm").gpus(4).at(T0).build()));
    out.add(tick(T0.plusSeconds(1)));
    out.add(new Offered(TopicCatalogue.JOBS_LIFECYCLE, started("busy", 0, 4, 4)));
    out.add(new Offered(TopicCatalogue.JOBS_LIFECYCLE, started("idle", 2, 0, 4)));
    for (int m = 0; m < MINUTES; m++) {
      for (int n = 0; n < NODES; n++) {
        List<GpuSample> node = new ArrayList<>();
        for (int g = 0; g < GPUS; g++) {
          node.add(reading(n, g, m));
        }
        if (batched) {
          for (GpuSampleBatch b : SampleBatches.ofScrape(node, 64)) {
            out.add(new Offered(TopicCatalogue.GPU_TELEMETRY_BATCHES, b));
          }
        } else {
          node.forEach(s -> out.add(new Offered(TopicCatalogue.GPU_TELEMETRY, s)));
        }
      }
      out.add(tick(T0.plusSeconds(60).plus(Duration.ofMinutes(m))));
    }
    return out;
  }

  record Offered(String topic, SpecificRecord value) {}

  static Offered tick(Instant at) {
    return new Offered(TopicCatalogue.CLUSTER_CLOCK, ClockTick.newBuilder().setCluster(CLUSTER)
        .setTime(at).setSequence(at.getEpochSecond()).setIntervalMillis(60_000)
        .setSource(ClockSource.SIMULATED).build());
  }

  static JobLifecycle started(String job, int node, int from, int gpus) {
    List<GpuAssignment> a = new ArrayList<>();
    for (int g = from; g < from + gpus; g++) {
      a.add(GpuAssignment.newBuilder().setNodeId("n" + node).setGpuIndex(g).setShare(1.0)
          .build());
    }
    return JobLifecycle.newBuilder().setJobId(job).setCluster(CLUSTER)
        .setType(LifecycleType.STARTED).setOccurredAt(T0.plusSeconds(2)).setAssignments(a)
        .build();
  }

  /** A kernel host fed a scenario: its last state, and every record and refusal it produced. */
  record Outcome<S>(S state, List<String> records, List<HostResult.Refusal> refused,
      List<?> effects) {}

  static <S> Outcome<S> run(KernelHost<S> host, List<Offered> records) {
    S state = host.empty();
    List<String> out = new ArrayList<>();
    List<HostResult.Refusal> refused = new ArrayList<>();
    List<Object> effects = new ArrayList<>();
    for (Offered o : records) {
      HostResult<S> r = host.offer(T0, state, o.topic(), o.value(), null);
      state = r.state();
      r.records().forEach(h -> out.add(h.topic() + " " + h.key() + " " + h.value()));
      refused.addAll(r.refused());
      effects.addAll(r.effects());
    }
    return new Outcome<>(state, out, refused, effects);
  }

  @Test
  void shouldGiveTheForecastKernelTheSameStateAndEffectsForABatchAsForItsSamples() {
    ForecastKernelConfig config = ForecastKernelConfig.defaults(CLUSTER, ZoneOffset.UTC);
    Outcome<ForecastState> samples = run(new ForecastKernelHost(config), scenario(false));
    Outcome<ForecastState> batches = run(new ForecastKernelHost(config), scenario(true));

    assertThat(samples.records()).anyMatch(r -> r.startsWith("capacity.reservations chat"));
    assertThat(batches.records()).isEqualTo(samples.records());
    assertThat(batches.effects()).isEqualTo(samples.effects());
    assertThat(batches.refused()).isEqualTo(samples.refused());
    assertThat(batches.state().snapshot()).isEqualTo(samples.state().snapshot());
  }

  @Test
  void shouldGiveTheQuotaKernelTheSameStateAndEffectsForABatchAsForItsSamples() {
    QuotaKernelConfig config = QuotaKernelConfig.defaults(CLUSTER,
        QuotaHost.bootstrap("file:test", DEFINITION));
    Outcome<QuotaKernelState> samples = run(new QuotaKernelHost(config), scenario(false));
    Outcome<QuotaKernelState> batches = run(new QuotaKernelHost(config), scenario(true));

    assertThat(samples.state().samples().asMap()).isNotEmpty(); // the jobs' utilisation is kept
    assertThat(batches.records()).isEqualTo(samples.records());
    assertThat(batches.effects()).isEqualTo(samples.effects());
    assertThat(batches.refused()).isEqualTo(samples.refused());
    assertThat(batches.state()).isEqualTo(samples.state());
  }

  @Test
  void shouldKeepEveryGpuOfAScrapeInItsOrderAndEveryFieldOfItsSamples() {
    List<GpuSample> scrape = new ArrayList<>();
    for (int n = 0; n < 2; n++) {
      for (int g = GPUS - 1; g >= 0; g--) {
        scrape.add(reading(n, g, 3));
      }
    }
    List<GpuSampleBatch> batches = SampleBatches.ofScrape(scrape, 64);
    assertThat(batches).extracting(GpuSampleBatch::getNodeId).containsExactly("n0", "n1");
    assertThat(batches.stream().flatMap(b -> SampleBatches.samples(b).stream()).toList())
        .isEqualTo(scrape);
    // a node with more GPUs than a batch may hold is split, order kept
    List<GpuSampleBatch> small = SampleBatches.ofScrape(scrape, 3);
    assertThat(small).hasSize(6);
    assertThat(small.stream().flatMap(b -> b.getGpus().stream()).map(GpuReading::getGpuId)
        .toList()).isEqualTo(scrape.stream().map(GpuSample::getGpuId).toList());
  }
}
