package io.tideline.telemetry.collect.dcgm;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.telemetry.Fixtures;
import io.tideline.telemetry.collect.Attributor;
import io.tideline.telemetry.collect.prom.PromTextParser;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DcgmMapperTest {

  static final Instant NOW = Instant.parse("2026-11-02T09:00:00Z");
  static final String H100_6 = "GPU-d0f25a6f-9a3f-61b9-c128-3d14759651d7";

  /** The convention with the NIM namespace listed as an inference namespace. */
  static final Attributor ATTRIBUTION = new Attributor("tideline_io_job_id", "tideline_io_service_id",
      List.of("inference", "nim-workload"), "^(?<id>.+)-[a-z0-9]{6,10}-[a-z0-9]{5}$",
      List.of("training", "batch"), "^(?<id>.+?)(-(worker|master|launcher|ps|chief|head))?-[0-9]+$");

  @Test
  void shouldMapEveryGpuOfACapturedEightGpuNode() {
    List<GpuSample> gpus = map(Fixtures.text(Fixtures.H100_EKS), null);

    assertThat(gpus).hasSize(8);
    assertThat(gpus).extracting(GpuSample::getGpuIndex).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(gpus).allSatisfy(g -> {
      assertThat(g.getNodeId()).isEqualTo("ip-10-0-180-136.ec2.internal");
      assertThat(g.getModel()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(g.getState()).isEqualTo(SampleState.OK);
      assertThat(g.getSource()).isEqualTo(SampleSource.DCGM);
      assertThat(g.getCluster()).isEqualTo("lab");
      assertThat(g.getSampledAt()).isEqualTo(NOW);
      assertThat(g.getUtilizationPct()).isEqualTo(0.0);
      // FB series are not in this capture: unknown, not zero.
      assertThat(g.getMemoryUsedMiB()).isNull();
      assertThat(g.getMemoryFreeMiB()).isNull();
    });
    GpuSample six = gpus.get(6);
    assertThat(six.getGpuId()).isEqualTo(H100_6);
    assertThat(six.getPowerWatts()).isEqualTo(112.67);
    assertThat(six.getTemperatureC()).isEqualTo(37.0);
    assertThat(gpus.get(7).getPowerWatts()).isEqualTo(65.061);
  }

  @Test
  void shouldAttributeTheNimPodToItsServiceByTheDeploymentNamingConvention() {
    List<GpuSample> gpus = map(Fixtures.text(Fixtures.H100_EKS), null);

    GpuSample six = gpus.get(6);
    assertThat(six.getNamespace()).isEqualTo("nim-workload");
    assertThat(six.getPod()).isEqualTo("llama-3-2-1b-7577f87fc7-dhb97");
    assertThat(six.getContainer()).isEqualTo("llama-3-2-1b-ctr");
    assertThat(six.getServiceId()).isEqualTo("llama-3-2-1b");
    assertThat(six.getJobId()).isNull();
    assertThat(gpus.stream().filter(g -> g != six)).allSatisfy(g -> {
      assertThat(g.getPod()).isNull();
      assertThat(g.getServiceId()).isNull();
      assertThat(g.getJobId()).isNull();
    });
  }

  @Test
  void shouldMapAllFiveFieldsOfACompleteCapture() {
    GpuSample l4 = map(Fixtures.text(Fixtures.L4_KOPS), null).get(0);

    assertThat(l4.getGpuId()).isEqualTo("GPU-c2f76b33-7953-256e-8f33-1343419b1a1c");
    assertThat(l4.getNodeId()).isEqualTo("i-030791dc5a37cd257");
    assertThat(l4.getUtilizationPct()).isEqualTo(0.0);
    assertThat(l4.getMemoryUsedMiB()).isEqualTo(0.0);
    assertThat(l4.getMemoryFreeMiB()).isEqualTo(22563.0);
    assertThat(l4.getPowerWatts()).isEqualTo(16.365);
    assertThat(l4.getTemperatureC()).isEqualTo(31.0);
  }

  @Test
  void shouldPreferTheTargetsNodeIdOverTheHostnameLabel() {
    assertThat(map(Fixtures.text(Fixtures.L4_KOPS), "gpu-node-7").get(0).getNodeId())
        .isEqualTo("gpu-node-7");
  }

  @Test
  void shouldAttributeTrainingPodsToTheirJobAndHonourAnExplicitPodLabel() {
    String body = String.join("\n",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",namespace=\"training\",pod=\"llm-pretrain-42-worker-3\"} 97",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",namespace=\"training\",pod=\"llm-pretrain-42-worker-3\",tideline_io_job_id=\"job-7\"} 95",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\",UUID=\"GPU-c\",namespace=\"kube-system\",pod=\"smoke-test-0\"} 3");

    List<GpuSample> gpus = map(body, "n1");

    assertThat(gpus).extracting(GpuSample::getJobId).containsExactly("llm-pretrain-42", "job-7", null);
    assertThat(gpus).extracting(GpuSample::getServiceId).containsOnlyNulls();
    assertThat(gpus.get(2).getNamespace()).isEqualTo("kube-system");
  }

  @Test
  void shouldLeaveNonFiniteFiguresUnknownAndUseTheNewestSeriesTimestamp() {
    String body = String.join("\n",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} NaN 1762077600000",
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} +Inf 1762077601000",
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 40 1762077599000");

    GpuSample g = map(body, "n1").get(0);

    assertThat(g.getUtilizationPct()).isNull();
    assertThat(g.getPowerWatts()).isNull();
    assertThat(g.getTemperatureC()).isEqualTo(40.0);
    assertThat(g.getSampledAt()).isEqualTo(Instant.ofEpochMilli(1762077601000L));
  }

  @Test
  void shouldCountSeriesWithoutAGpuIndexAsUnusableAndIgnoreOtherMetrics() {
    var parsed = PromTextParser.parse(String.join("\n",
        "DCGM_FI_DEV_GPU_UTIL 5",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"x\",UUID=\"GPU-a\"} 5",
        "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\"} 1410",
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"3\",GPU_I_PROFILE=\"2g.20gb\"} 12"));

    DcgmMapper.Mapped m = DcgmMapper.map(parsed.samples(), "lab", null, "host", NOW, ATTRIBUTION);

    assertThat(m.unusable()).isEqualTo(2);
    assertThat(m.samples()).extracting(GpuSample::getGpuId).containsExactly("GPU-a/mig-3");
    assertThat(m.samples().get(0).getNodeId()).isEqualTo("host");
  }

  static List<GpuSample> map(String body, String node) {
    var parsed = PromTextParser.parse(body);
    assertThat(parsed.malformed()).isEmpty();
    return DcgmMapper.map(parsed.samples(), "lab", node, "fallback", NOW, ATTRIBUTION).samples();
  }

  @Test
  void shouldNotAttributeWithoutNamespaceOrPod() {
    assertThat(ATTRIBUTION.attribute(Map.of("pod", "x-1"))).isEqualTo(new Attributor.Attribution(null, null));
  }
}
