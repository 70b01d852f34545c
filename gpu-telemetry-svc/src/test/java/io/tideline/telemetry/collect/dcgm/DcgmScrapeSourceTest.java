package io.tideline.telemetry.collect.dcgm;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleState;
import io.tideline.telemetry.Fixtures;
import io.tideline.telemetry.collect.StaleTracker;
import io.tideline.telemetry.collect.TargetReading;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Scrapes captured exporter output from a real HTTP server; failures turn GPUs STALE. */
class DcgmScrapeSourceTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

  final ExporterServer exporter = new ExporterServer()
      .serve("/h100/metrics", Fixtures.text(Fixtures.H100_EKS))
      .serve("/l4/metrics", Fixtures.text(Fixtures.L4_KOPS));

  @AfterEach
  void stop() {
    exporter.close();
  }

  DcgmScrapeSource source(String... targets) {
    return new DcgmScrapeSource("lab", java.util.Arrays.stream(targets)
        .map(DcgmScrapeSource.Target::parse).toList(), Duration.ofSeconds(2), DcgmMapperTest.ATTRIBUTION);
  }

  @Test
  void shouldScrapeEveryTargetOverHttp() {
    List<TargetReading> round = source(exporter.url("/h100/metrics"),
        "gpu-node-l4=" + exporter.url("/l4/metrics")).collect(T0);

    assertThat(round).hasSize(2).allSatisfy(r -> assertThat(r.failure()).isEmpty());
    assertThat(round.get(0).samples()).hasSize(8);
    assertThat(round.get(1).samples()).singleElement()
        .satisfies(g -> assertThat(g.getNodeId()).isEqualTo("gpu-node-l4"));
    assertThat(round.get(0).malformedLines()).isZero();
  }

  @Test
  void shouldMarkANodesGpusStaleWhileItsExporterFailsAndClearItOnRecovery() {
    DcgmScrapeSource src = source(exporter.url("/h100/metrics"), exporter.url("/l4/metrics"));
    StaleTracker stale = new StaleTracker();

    List<GpuSample> first = stale.apply(src.collect(T0), T0);
    exporter.fail("/h100/metrics", 503);
    List<GpuSample> second = stale.apply(src.collect(T0.plusSeconds(10)), T0.plusSeconds(10));
    exporter.serve("/h100/metrics", Fixtures.text(Fixtures.H100_EKS));
    List<GpuSample> third = stale.apply(src.collect(T0.plusSeconds(20)), T0.plusSeconds(20));

    assertThat(first).hasSize(9).allSatisfy(g -> assertThat(g.getState()).isEqualTo(SampleState.OK));
    // The failed node: 8 STALE samples with no figures at all, never 0%; the other node is fine.
    assertThat(second).hasSize(9);
    List<GpuSample> staleOnes = second.stream().filter(g -> g.getState() == SampleState.STALE).toList();
    assertThat(staleOnes).hasSize(8).allSatisfy(g -> {
      assertThat(g.getNodeId()).isEqualTo("ip-10-0-180-136.ec2.internal");
      assertThat(g.getUtilizationPct()).isNull();
      assertThat(g.getMemoryUsedMiB()).isNull();
      assertThat(g.getMemoryFreeMiB()).isNull();
      assertThat(g.getPowerWatts()).isNull();
      assertThat(g.getTemperatureC()).isNull();
      assertThat(g.getSampledAt()).isEqualTo(T0.plusSeconds(10));
    });
    assertThat(staleOnes.get(6).getServiceId()).isEqualTo("llama-3-2-1b");
    assertThat(stale.staleGpus()).isZero(); // read after the recovery round
    assertThat(third).hasSize(9).allSatisfy(g -> assertThat(g.getState()).isEqualTo(SampleState.OK));
  }

  @Test
  void shouldCountStaleGpusUntilRecovery() {
    DcgmScrapeSource src = source(exporter.url("/h100/metrics"));
    StaleTracker stale = new StaleTracker();
    stale.apply(src.collect(T0), T0);
    exporter.fail("/h100/metrics", 500);

    stale.apply(src.collect(T0.plusSeconds(10)), T0.plusSeconds(10));

    assertThat(stale.staleGpus()).isEqualTo(8);
  }

  @Test
  void shouldTreatARefusedConnectionAsAFailedRead() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    TargetReading r = source("n9=http://127.0.0.1:" + closedPort + "/metrics").collect(T0).get(0);

    assertThat(r.failure()).hasValueSatisfying(f -> assertThat(f).contains("ConnectException"));
    assertThat(new StaleTracker().apply(List.of(r), T0)).isEmpty(); // never seen: nothing to mark
  }

  @Test
  void shouldSkipAndCountMalformedExporterLinesAndKeepTheGoodOnes() {
    exporter.serve("/broken/metrics", Fixtures.text(Fixtures.L4_KOPS)
        + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-c2f76b33\n"
        + "DCGM_FI_DEV_FB_USED{gpu=\"0\"} lots\n");

    TargetReading r = source(exporter.url("/broken/metrics")).collect(T0).get(0);

    assertThat(r.failure()).isEmpty();
    assertThat(r.malformedLines()).isEqualTo(2);
    assertThat(r.samples()).singleElement()
        .satisfies(g -> assertThat(g.getMemoryFreeMiB()).isEqualTo(22563.0));
  }
}
