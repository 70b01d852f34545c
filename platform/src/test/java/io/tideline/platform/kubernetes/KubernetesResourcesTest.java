package io.tideline.platform.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.core.model.Resources;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubernetesResourcesTest {

  static final String GPU = "nvidia.com/gpu";

  @Test
  void shouldPlaceCpuMemoryAndQualifiedExtendedResourcesButNotTheGpuOrKubernetesOwn() {
    assertThat(KubernetesResources.placed("cpu", GPU)).isTrue();
    assertThat(KubernetesResources.placed("memory", GPU)).isTrue();
    assertThat(KubernetesResources.placed("rdma/hca", GPU)).isTrue();
    assertThat(KubernetesResources.placed(GPU, GPU)).isFalse();
    assertThat(KubernetesResources.placed("kubernetes.io/batch-cpu", GPU)).isFalse();
    assertThat(KubernetesResources.placed("pods", GPU)).isFalse();
    assertThat(KubernetesResources.placed("ephemeral-storage", GPU)).isFalse();
    assertThat(KubernetesResources.placed("hugepages-2Mi", GPU)).isFalse();
  }

  @Test
  void shouldRoundWhatIsAskedUpAndWhatANodeHasDown() {
    BigDecimal cpu = new BigDecimal("0.0005"); // half a millicore
    assertThat(KubernetesResources.amount("cpu", cpu, RoundingMode.CEILING)).isEqualTo(1);
    assertThat(KubernetesResources.amount("cpu", cpu, RoundingMode.FLOOR)).isZero();
    assertThat(KubernetesResources.amount("memory", new BigDecimal("1024.5"), RoundingMode.FLOOR))
        .isEqualTo(1024);
  }

  @Test
  void shouldReadANodesAllocatableInMillicoresAndBytesDroppingWhatIsNotPlaced() {
    // an EKS p5.48xlarge as the API server reports it: cpu 191450m, memory 2070000000Ki
    Resources r = KubernetesResources.allocatable(Map.of(
        "cpu", new BigDecimal("191.450"),
        "memory", new BigDecimal("2070000000").multiply(BigDecimal.valueOf(1024)),
        GPU, new BigDecimal("8"),
        "pods", new BigDecimal("100"),
        "vpc.amazonaws.com/efa", new BigDecimal("32")), v -> v, GPU);

    assertThat(r.cpuMillis()).isEqualTo(191_450);
    assertThat(r.memoryBytes()).isEqualTo(2_070_000_000L * 1024);
    assertThat(r.extended()).containsExactly(Map.entry("vpc.amazonaws.com/efa", 32L));
  }

  @Test
  void shouldRefuseAnAmountOutsideTheContractsBoundNamingTheResource() {
    assertThatThrownBy(() -> KubernetesResources.amount("memory", new BigDecimal("1e30"),
        RoundingMode.FLOOR))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memory must be in [0, 2^62]");
    assertThatThrownBy(() -> KubernetesResources.amount("rdma/hca", new BigDecimal("-1"),
        RoundingMode.CEILING)).hasMessageContaining("rdma/hca must be in [0, 2^62], got -1");
  }

  @Test
  void shouldRefuseAHugeExponentAndRoundATinyOneAtOnce() {
    // a hundred-million-digit number if rounded naively: refused or rounded from the exponent
    assertThatThrownBy(() -> KubernetesResources.amount("memory", new BigDecimal("1e99999999"),
        RoundingMode.FLOOR)).hasMessageContaining("memory must be in [0, 2^62], got 1E+99999999");
    assertThatThrownBy(() -> KubernetesResources.amount("cpu", new BigDecimal("-1e99999999"),
        RoundingMode.CEILING)).hasMessageContaining("cpu must be in [0, 2^62]");
    assertThat(KubernetesResources.amount("cpu", new BigDecimal("1e-99999999"),
        RoundingMode.CEILING)).isEqualTo(1);
    assertThat(KubernetesResources.amount("cpu", new BigDecimal("1e-99999999"),
        RoundingMode.FLOOR)).isZero();
    assertThat(KubernetesResources.amount("memory", new BigDecimal("0e99999999"),
        RoundingMode.FLOOR)).isZero();
    assertThat(KubernetesResources.amount("memory", new BigDecimal("4611686018427387904"),
        RoundingMode.FLOOR)).isEqualTo(KubernetesResources.MAX_AMOUNT);
  }

  @Test
  void shouldLeaveAnOutOfRangeAllocatableUndeclared() {
    // as the API server's strings: parsed once, by the function given, then converted once
    Map<String, String> allocatable = new HashMap<>();
    allocatable.put("cpu", "96");
    allocatable.put("memory", "1e30"); // above 2^62
    allocatable.put("rdma/hca", "-2"); // negative
    allocatable.put("example.com/fpga", "lots"); // not numerical
    allocatable.put("vpc.amazonaws.com/efa", "4");
    allocatable.put("nvidia.com/nic", null);
    allocatable.put("pods", "not placed, never parsed");
    List<String> parsed = new ArrayList<>();

    Resources r = KubernetesResources.allocatable(allocatable, s -> {
      parsed.add(s);
      return new BigDecimal(s);
    }, GPU);

    // the node is still read: cpu and efa as declared, memory undeclared (does not limit), the
    // NICs and FPGAs as if unlisted (none)
    assertThat(r).isEqualTo(Resources.of(96_000, 0).with("vpc.amazonaws.com/efa", 4));
    assertThat(parsed).containsExactlyInAnyOrder("96", "1e30", "-2", "lots", "4");
  }
}
