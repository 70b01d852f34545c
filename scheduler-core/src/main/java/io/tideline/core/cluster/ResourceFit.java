package io.tideline.core.cluster;

import io.tideline.core.model.Resources;
import java.util.Map;

/**
 * Whether non-GPU resources fit on a node (issue #20, ADR 0030): the one rule the placer and the
 * ledger's guard share. A node's CPU or memory of 0 is undeclared and never limits; an extended
 * resource the node does not list has no free units.
 */
public final class ResourceFit {

  private ResourceFit() {}

  /**
   * The first resource of {@code ask} that does not fit into {@code allocatable - allocated}, in
   * the order cpu, memory, extended by name.
   *
   * @param resource {@code cpu}, {@code memory} or the extended resource's name
   * @param needs the quantity asked
   * @param free the quantity still free on the node
   */
  public record Shortfall(String resource, long needs, long free) {

    /** E.g. {@code cpu: needs 8000m, node has 2000m free}. */
    public String describe() {
      String unit = switch (resource) {
        case "cpu" -> "m";
        case "memory" -> "B";
        default -> "";
      };
      return resource + ": needs " + needs + unit + ", node has " + free + unit + " free";
    }
  }

  /** What does not fit, or {@code null} when {@code ask} fits. */
  public static Shortfall shortfall(Resources allocatable, Resources allocated, Resources ask) {
    if (ask.isNone()) {
      return null;
    }
    if (allocatable.cpuMillis() > 0
        && ask.cpuMillis() > allocatable.cpuMillis() - allocated.cpuMillis()) {
      return new Shortfall("cpu", ask.cpuMillis(),
          Math.max(0, allocatable.cpuMillis() - allocated.cpuMillis()));
    }
    if (allocatable.memoryBytes() > 0
        && ask.memoryBytes() > allocatable.memoryBytes() - allocated.memoryBytes()) {
      return new Shortfall("memory", ask.memoryBytes(),
          Math.max(0, allocatable.memoryBytes() - allocated.memoryBytes()));
    }
    for (Map.Entry<String, Long> e : ask.extended().entrySet()) {
      long free = allocatable.extended(e.getKey()) - allocated.extended(e.getKey());
      if (e.getValue() > free) {
        return new Shortfall(e.getKey(), e.getValue(), Math.max(0, free));
      }
    }
    return null;
  }

  /**
   * How many workers asking {@code perWorker} each still fit, {@link Long#MAX_VALUE} when none of
   * its resources is constrained on the node.
   */
  public static long workersThatFit(Resources allocatable, Resources allocated,
      Resources perWorker) {
    long fit = Long.MAX_VALUE;
    if (perWorker.isNone()) {
      return fit;
    }
    if (allocatable.cpuMillis() > 0 && perWorker.cpuMillis() > 0) {
      fit = Math.min(fit, units(allocatable.cpuMillis() - allocated.cpuMillis(),
          perWorker.cpuMillis()));
    }
    if (allocatable.memoryBytes() > 0 && perWorker.memoryBytes() > 0) {
      fit = Math.min(fit, units(allocatable.memoryBytes() - allocated.memoryBytes(),
          perWorker.memoryBytes()));
    }
    for (Map.Entry<String, Long> e : perWorker.extended().entrySet()) {
      fit = Math.min(fit, units(allocatable.extended(e.getKey())
          - allocated.extended(e.getKey()), e.getValue()));
    }
    return fit;
  }

  private static long units(long free, long each) {
    return free <= 0 ? 0 : free / each;
  }
}
