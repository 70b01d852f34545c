package io.tideline.simulator.placementstudy;

import java.util.List;

/**
 * One row of a pods CSV in the public GPU-cluster trace format ({@code name,cpu_milli,memory_mib,
 * num_gpu,gpu_milli,gpu_spec,...}); the time and phase columns are read past: the protocol
 * places pods one by one in a seeded order and never removes them.
 *
 * @param name pod name (unique in the file)
 * @param cpuMilli CPU asked, millicores
 * @param memoryMib memory asked, MiB
 * @param numGpu GPUs asked (0 = a pod of CPU and memory only)
 * @param gpuMilli per-GPU share in 1/1000; below 1000 only with {@code numGpu == 1} (fractional)
 * @param models allowed GPU models ({@code gpu_spec}, {@code |}-separated); empty = any
 */
public record StudyPod(String name, long cpuMilli, long memoryMib, int numGpu, int gpuMilli,
    List<String> models) {

  public StudyPod {
    models = List.copyOf(models);
  }

  /** Whether this pod takes a share of one GPU. */
  public boolean fractional() {
    return numGpu == 1 && gpuMilli > 0 && gpuMilli < PlacementStudy.MILLI;
  }

  /** GPUs this pod occupies, a fractional pod by its share. */
  public double gpuDemand() {
    return fractional() ? gpuMilli / (double) PlacementStudy.MILLI : numGpu;
  }

  /** This pod under another name (an inflation copy). */
  public StudyPod named(String n) {
    return new StudyPod(n, cpuMilli, memoryMib, numGpu, gpuMilli, models);
  }
}
