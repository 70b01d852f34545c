package io.tideline.core.preemption;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Feasibility for a capacity reclaim (a service reservation starting, F2): the room is "any
 * {@code gpus} GPUs", because placement reserves GPUs for a service by count (idle ones first,
 * then ones held by preemptible work), not as a gang shape. The preemptor fits when the idle GPUs
 * plus the GPUs the evicted jobs hold reach its {@link PreemptionRequest#gpus()}. Incremental and
 * monotone.
 */
public final class GpuCountProbe implements IncrementalProbe {

  private final double idleGpus;
  private final Map<String, Double> held;

  /**
   * @param idleGpus GPUs free now, not counted for anyone else
   * @param held GPUs each running job holds
   */
  public GpuCountProbe(double idleGpus, Map<String, Double> held) {
    this.idleGpus = idleGpus;
    this.held = Map.copyOf(Objects.requireNonNull(held, "held"));
  }

  @Override
  public boolean feasibleWithout(PreemptionRequest preemptor, Set<String> evictedJobIds) {
    double free = idleGpus;
    for (String id : evictedJobIds) {
      free += held.getOrDefault(id, 0.0);
    }
    return fits(free, preemptor);
  }

  @Override
  public Session open(PreemptionRequest preemptor) {
    return new Session() {
      private double free = idleGpus;

      @Override
      public void evict(String jobId) {
        free += held.getOrDefault(jobId, 0.0);
      }

      @Override
      public void restore(String jobId) {
        free -= held.getOrDefault(jobId, 0.0);
      }

      @Override
      public boolean feasible() {
        return fits(free, preemptor);
      }
    };
  }

  private static boolean fits(double free, PreemptionRequest preemptor) {
    return free >= preemptor.gpus() - 1e-9;
  }
}
