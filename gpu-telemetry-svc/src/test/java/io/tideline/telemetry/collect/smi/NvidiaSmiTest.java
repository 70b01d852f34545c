package io.tideline.telemetry.collect.smi;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.telemetry.Fixtures;
import io.tideline.telemetry.collect.TargetReading;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

  @Test
  void shouldParseTheQueryCsvWithMissingFiguresAsNullNeverZero() {
    NvidiaSmiCsv.Parsed p = NvidiaSmiCsv.parse(Fixtures.text(Fixtures.SMI), "lab", "node-a", T0);

    assertThat(p.malformed()).isEmpty();
    List<GpuSample> s = p.samples();
    assertThat(s).hasSize(3).allSatisfy(g -> {
      assertThat(g.getSource()).isEqualTo(SampleSource.NVIDIA_SMI);
      assertThat(g.getNodeId()).isEqualTo("node-a");
      assertThat(g.getSampledAt()).isEqualTo(T0);
    });
    assertThat(s.get(0).getGpuId()).isEqualTo("GPU-c2f76b33-7953-256e-8f33-1343419b1a1c");
    assertThat(s.get(0).getModel()).isEqualTo("NVIDIA L4");
    assertThat(s.get(0).getMemoryFreeMiB()).isEqualTo(22563.0);
    assertThat(s.get(0).getPowerWatts()).isEqualTo(16.36);
    assertThat(s.get(0).getTemperatureC()).isEqualTo(31.0);
    // [N/A] on a vGPU profile: no power, no temperature.
    assertThat(s.get(1).getPowerWatts()).isNull();
    assertThat(s.get(1).getTemperatureC()).isNull();
    assertThat(s.get(1).getUtilizationPct()).isEqualTo(0.0);
    // [Not Supported] utilisation: unknown, not idle.
    assertThat(s.get(2).getUtilizationPct()).isNull();
    assertThat(s.get(2).getGpuIndex()).isEqualTo(2);
    assertThat(s.get(2).getMemoryUsedMiB()).isEqualTo(1.0);
  }

  @Test
  void shouldSkipAndReportMalformedLines() {
    String text = String.join("\n",
        "0, GPU-a, NVIDIA H100 80GB HBM3, 97, 70000, 11559, 650.12, 71",
        "1, GPU-b, NVIDIA H100 80GB HBM3, 97, 70000",
        "x, GPU-c, NVIDIA H100 80GB HBM3, 97, 70000, 11559, 650.12, 71",
        "3, GPU-d, NVIDIA H100 80GB HBM3, ninety, 70000, 11559, 650.12, 71",
        "4, [N/A], NVIDIA H100 80GB HBM3, 1, 2, 3, 4, 5",
        "",
        "5, GPU-f, NVIDIA H100 80GB HBM3, [Unknown Error], [N/A], [N/A], [N/A], [N/A]");

    NvidiaSmiCsv.Parsed p = NvidiaSmiCsv.parse(text, "lab", "node-a", T0);

    assertThat(p.samples()).extracting(GpuSample::getGpuId).containsExactly("GPU-a", "GPU-f");
    assertThat(p.malformed()).hasSize(4);
    assertThat(p.malformed().get(0)).contains("line 2").contains("expected 8 fields, got 5");
    assertThat(p.malformed().get(1)).contains("index is not a number");
    assertThat(p.malformed().get(2)).contains("utilization.gpu is not a number: 'ninety'");
    assertThat(p.malformed().get(3)).contains("no GPU UUID");
  }

  @Test
  void shouldRunTheCommandThroughProcessBuilder(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("smi.csv");
    Files.writeString(csv, Fixtures.text(Fixtures.SMI) + "garbage line\n");

    TargetReading r = new NvidiaSmiSource("lab", "node-a", "cat " + csv, Duration.ofSeconds(10))
        .collect(T0).get(0);

    assertThat(r.failure()).isEmpty();
    assertThat(r.samples()).hasSize(3);
    assertThat(r.malformedLines()).isEqualTo(1);
    assertThat(r.target()).isEqualTo("nvidia-smi@node-a");
  }

  @Test
  void shouldReportAFailingOrMissingCommandAsAFailedRead(@TempDir Path dir) {
    TargetReading failing = new NvidiaSmiSource("lab", "node-a", "cat " + dir.resolve("absent"),
        Duration.ofSeconds(10)).collect(T0).get(0);
    TargetReading missing = new NvidiaSmiSource("lab", "node-a", "/nonexistent/nvidia-smi -q",
        Duration.ofSeconds(10)).collect(T0).get(0);

    assertThat(failing.failure()).hasValueSatisfying(f -> assertThat(f).contains("exited 1"));
    assertThat(missing.failure()).hasValueSatisfying(f -> assertThat(f).contains("cannot run"));
  }
}
