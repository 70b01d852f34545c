package io.tideline.platform.kubernetes;

import io.tideline.core.model.Resources;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Which Kubernetes resources Tideline places besides GPUs, and in what unit (ADR 0030) — the one
 * rule both sides of a placement read: the executor for what a pod asks, the telemetry inventory
 * for what a node has. No client library here: quantities arrive as the numbers Kubernetes'
 * {@code Quantity} parses to, or (a node's allocatable) with the function that parses them.
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
 *   <li>A node's quantity that is not numerical or out of bounds is skipped, not refused: that
 *       one resource is undeclared and the node is still placed ({@link #allocatable}).
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
    BigDecimal v = name.equals("cpu") ? value.scaleByPowerOfTen(3) : value;
    if (v.signum() == 0) {
      return 0;
    }
    // Bounds before rounding, in time independent of the exponent: rounding 1e99999999 (or
    // 1e-99999999) to a whole number would build a number of a hundred million digits.
    int integerDigits = v.precision() - v.scale();
    if (v.signum() < 0 || integerDigits > 19) {
      throw new IllegalArgumentException(name + " must be in [0, 2^62], got " + shown(value));
    }
    if (integerDigits < -20) {
      v = TINY; // every mode rounds any 0 < v < 0.5 alike
    }
    v = v.setScale(0, rounding);
    if (v.compareTo(BigDecimal.valueOf(MAX_AMOUNT)) > 0) {
      throw new IllegalArgumentException(name + " must be in [0, 2^62], got " + shown(value));
    }
    return v.longValueExact();
  }

  private static final BigDecimal TINY = new BigDecimal("1e-20");

  /** The value as the refusal quotes it: plain when short, else in scientific notation. */
  private static String shown(BigDecimal value) {
    return Math.abs((long) value.scale()) > 40 ? value.toString() : value.toPlainString();
  }

  /**
   * A node's allocatable as placement sees it, one conversion per quantity: the placed resources
   * (rule 1) of {@code allocatable} (Kubernetes' {@code status.allocatable}), each made a number by
   * {@code numerical} (e.g. fabric8's {@code Quantity::getNumericalAmount}) and converted by
   * {@link #amount} rounded down.
   *
   * <p>A quantity the API server should never have accepted does not hide the node: an entry that
   * is null, not numerical ({@code numerical} throws {@link IllegalArgumentException} or
   * {@link ArithmeticException}) or out of [0, 2^62] is skipped, as if the node did not list that
   * resource — so CPU or memory is then undeclared and does not limit (ADR 0030, point 2), an
   * extended resource is one the node has none of — and every other resource is still read.
   */
  public static <Q> Resources allocatable(Map<String, Q> allocatable,
      Function<? super Q, BigDecimal> numerical, String gpuResource) {
    long cpu = 0;
    long memory = 0;
    TreeMap<String, Long> extended = new TreeMap<>();
    for (Map.Entry<String, Q> e : new TreeMap<>(allocatable).entrySet()) {
      String name = e.getKey();
      if (e.getValue() == null || !placed(name, gpuResource)) {
        continue;
      }
      long v;
      try {
        v = amount(name, numerical.apply(e.getValue()), RoundingMode.FLOOR);
      } catch (IllegalArgumentException | ArithmeticException unreadable) {
        continue; // left undeclared, see above
      }
      switch (name) {
        case "cpu" -> cpu = v;
        case "memory" -> memory = v;
        default -> extended.put(name, v);
      }
    }
    return extended.isEmpty() ? Resources.of(cpu, memory) : new Resources(cpu, memory, extended);
  }
}
