package io.tideline.platform.kubernetes;

import io.tideline.core.model.Resources;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which Kubernetes resources Tideline places besides GPUs, and in what unit (ADR 0030) — the one
 * rule both sides of a placement read: the executor for what a pod asks, the telemetry inventory
 * for what a node has. No client library here: quantities arrive as the numbers Kubernetes'
 * {@code Quantity} parses to.
 *
 * <ol>
 *   <li>Placed: {@code cpu}, {@code memory}, and the domain-qualified extended resources
 *       ({@code rdma/hca}, {@code example.com/fpga}) other than the GPU resource (placed as GPUs)
 *       and Kubernetes' own {@code kubernetes.io/…}. Unqualified names other than cpu and memory
 *       ({@code pods}, {@code ephemeral-storage}, {@code hugepages-2Mi}) are not placed.
 *   <li>Units: CPU in millicores, everything else as is (memory in bytes, extended in units).
 *   <li>Rounding: what is <em>asked</em> rounds up ({@link RoundingMode#CEILING}), so no pod is
 *       charged less than it asks; what a node <em>has</em> rounds down
 *       ({@link RoundingMode#FLOOR}), so a node never offers more than it has.
 *   <li>Bounds: every amount in [0, 2^62], the contracts' bound, so sums cannot overflow.
 * </ol>
 */
public final class KubernetesResources {

  /** The largest amount a contract carries (sums of a few stay within a long). */
  public static final long MAX_AMOUNT = 1L << 62;

  private KubernetesResources() {}

  /** Whether placement accounts the resource {@code name} (rule 1). */
  public static boolean placed(String name, String gpuResource) {
    return name.equals("cpu") || name.equals("memory")
        || (name.contains("/") && !name.equals(gpuResource) && !name.startsWith("kubernetes.io/"));
  }

  /**
   * The amount of {@code name} in Tideline's unit (rules 2–4).
   *
   * @throws IllegalArgumentException when the amount is negative or above 2^62, with the reason
   */
  public static long amount(String name, BigDecimal value, RoundingMode rounding) {
    BigDecimal v = name.equals("cpu") ? value.multiply(BigDecimal.valueOf(1000)) : value;
    v = v.setScale(0, rounding);
    if (v.signum() < 0 || v.compareTo(BigDecimal.valueOf(MAX_AMOUNT)) > 0) {
      throw new IllegalArgumentException(name + " must be in [0, 2^62], got " + value.toPlainString());
    }
    return v.longValueExact();
  }

  /**
   * A node's allocatable as placement sees it: the placed resources of {@code allocatable}
   * (Kubernetes' {@code status.allocatable}, already numerical), each rounded down.
   *
   * @throws IllegalArgumentException naming the resource whose amount is out of bounds
   */
  public static Resources allocatable(Map<String, BigDecimal> allocatable, String gpuResource) {
    long cpu = 0;
    long memory = 0;
    TreeMap<String, Long> extended = new TreeMap<>();
    for (Map.Entry<String, BigDecimal> e : new TreeMap<>(allocatable).entrySet()) {
      String name = e.getKey();
      if (!placed(name, gpuResource)) {
        continue;
      }
      long v = amount(name, e.getValue(), RoundingMode.FLOOR);
      switch (name) {
        case "cpu" -> cpu = v;
        case "memory" -> memory = v;
        default -> extended.put(name, v);
      }
    }
    return extended.isEmpty() ? Resources.of(cpu, memory) : new Resources(cpu, memory, extended);
  }
}
