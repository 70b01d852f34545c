package io.tideline.core.model;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Quantities of the non-GPU resources a node offers or a pod asks (issue #20, ADR 0030): CPU in
 * millicores, memory in bytes, and named extended resources (Kubernetes' {@code rdma/hca},
 * {@code example.com/fpga}, …) as whole units.
 *
 * <p>On a {@link JobRequest} these are what <em>one worker</em> (pod) asks; {@link #NONE} asks
 * nothing. On a node's allocatable, CPU or memory of 0 means "not declared": the node is not
 * constrained in it (so fleets that report GPUs only place exactly as before); an extended
 * resource the node does not list is one it has none of, as in Kubernetes.
 *
 * @param cpuMillis CPU in millicores (1000 = one core), not negative
 * @param memoryBytes memory in bytes, not negative
 * @param extended extended resources by name, each a positive whole quantity (zero entries are
 *     dropped), sorted by name
 */
public record Resources(long cpuMillis, long memoryBytes, SortedMap<String, Long> extended) {

  /** Asks nothing; on a node: declares nothing. */
  public static final Resources NONE = new Resources(0, 0, Collections.emptySortedMap());

  public Resources {
    if (cpuMillis < 0 || memoryBytes < 0) {
      throw new IllegalArgumentException("resources must not be negative, got cpu " + cpuMillis
          + "m, memory " + memoryBytes + " bytes");
    }
    TreeMap<String, Long> ext = new TreeMap<>();
    if (extended != null) {
      for (Map.Entry<String, Long> e : extended.entrySet()) {
        Objects.requireNonNull(e.getKey(), "extended resource name");
        long q = Objects.requireNonNull(e.getValue(), "extended resource " + e.getKey());
        if (q < 0) {
          throw new IllegalArgumentException("extended resource " + e.getKey()
              + " must not be negative, got " + q);
        }
        if (q > 0) {
          ext.put(e.getKey(), q);
        }
      }
    }
    extended = Collections.unmodifiableSortedMap(ext);
  }

  /** CPU and memory, no extended resources. */
  public static Resources of(long cpuMillis, long memoryBytes) {
    return cpuMillis == 0 && memoryBytes == 0 ? NONE
        : new Resources(cpuMillis, memoryBytes, Collections.emptySortedMap());
  }

  /** This with {@code quantity} of extended resource {@code name}. */
  public Resources with(String name, long quantity) {
    TreeMap<String, Long> ext = new TreeMap<>(extended);
    ext.put(name, quantity);
    return new Resources(cpuMillis, memoryBytes, ext);
  }

  /** The quantity of extended resource {@code name}, 0 when absent. */
  public long extended(String name) {
    Long q = extended.get(name);
    return q == null ? 0 : q;
  }

  /** Whether every quantity is zero. */
  public boolean isNone() {
    return cpuMillis == 0 && memoryBytes == 0 && extended.isEmpty();
  }

  /** The sum of both. */
  public Resources plus(Resources o) {
    if (o.isNone()) {
      return this;
    }
    if (isNone()) {
      return o;
    }
    TreeMap<String, Long> ext = new TreeMap<>(extended);
    o.extended.forEach((k, v) -> ext.merge(k, v, Math::addExact));
    return new Resources(Math.addExact(cpuMillis, o.cpuMillis),
        Math.addExact(memoryBytes, o.memoryBytes), ext);
  }

  /** This minus {@code o}; fails if any quantity would become negative. */
  public Resources minus(Resources o) {
    if (o.isNone()) {
      return this;
    }
    TreeMap<String, Long> ext = new TreeMap<>(extended);
    o.extended.forEach((k, v) -> ext.merge(k, -v, Long::sum));
    return new Resources(cpuMillis - o.cpuMillis, memoryBytes - o.memoryBytes, ext);
  }

  /** {@code k} times this (k workers of one request). */
  public Resources times(int k) {
    if (k == 1 || isNone()) {
      return this;
    }
    if (k == 0) {
      return NONE;
    }
    TreeMap<String, Long> ext = new TreeMap<>();
    extended.forEach((n, v) -> ext.put(n, Math.multiplyExact(v, (long) k)));
    return new Resources(Math.multiplyExact(cpuMillis, (long) k),
        Math.multiplyExact(memoryBytes, (long) k), ext);
  }

  /** Human-readable, e.g. {@code cpu 8000m, memory 34359738368B, rdma/hca 1}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    if (cpuMillis > 0) {
      s.append("cpu ").append(cpuMillis).append('m');
    }
    if (memoryBytes > 0) {
      s.append(s.length() > 0 ? ", " : "").append("memory ").append(memoryBytes).append('B');
    }
    extended.forEach((n, v) -> s.append(s.length() > 0 ? ", " : "").append(n).append(' ')
        .append(v));
    return s.length() == 0 ? "none" : s.toString();
  }
}
