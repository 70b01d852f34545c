package io.tideline.core.fragmentation;

import io.tideline.core.model.JobRequest;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The job shapes actually demanded (T2), as "GPUs needed together on one node" → how often. An
 * idle GPU is only useful if some demanded shape can use it; this histogram is what "useful"
 * means for the {@link FragmentationIndex}.
 *
 * <p>The shape of a request ({@link #shapeOf}) is the largest piece it needs on a single node: a
 * fractional instance needs 1 (it can even use a partly used GPU), a gang with {@code nodes > 0}
 * needs {@code ceil(gpuCount / nodes)}, otherwise one worker ({@code gpuCount / gangSize}, or 1
 * when that does not divide). Shapes are capped at the largest node.
 *
 * @param counts demanded shape (GPUs on one node, ≥ 1) → weight (≥ 0, not all 0)
 */
public record DemandHistogram(SortedMap<Integer, Long> counts) {

  public DemandHistogram {
    TreeMap<Integer, Long> copy = new TreeMap<>(counts);
    long total = 0;
    for (Map.Entry<Integer, Long> e : copy.entrySet()) {
      if (e.getKey() < 1 || e.getValue() < 0) {
        throw new IllegalArgumentException("bad histogram entry " + e);
      }
      total += e.getValue();
    }
    if (total == 0) {
      throw new IllegalArgumentException("demand histogram has no weight");
    }
    counts = Collections.unmodifiableSortedMap(copy);
  }

  /** T2's reference case: all demand is whole nodes of {@code gpusPerNode} GPUs. */
  public static DemandHistogram wholeNode(int gpusPerNode) {
    return new DemandHistogram(new TreeMap<>(Map.of(gpusPerNode, 1L)));
  }

  /** The histogram of the given requests' shapes, capped at {@code maxGpusPerNode}. */
  public static DemandHistogram of(Collection<JobRequest> jobs, int maxGpusPerNode) {
    TreeMap<Integer, Long> counts = new TreeMap<>();
    for (JobRequest j : jobs) {
      counts.merge(Math.min(shapeOf(j), maxGpusPerNode), 1L, Long::sum);
    }
    return new DemandHistogram(counts);
  }

  /** GPUs the request needs together on one node; see the class comment. */
  public static int shapeOf(JobRequest job) {
    if (job.fractional() || job.gpuCount() <= 1) {
      return 1;
    }
    if (job.nodes() > 0) {
      return (job.gpuCount() + job.nodes() - 1) / job.nodes();
    }
    return job.gangSize() > 0 && job.gpuCount() % job.gangSize() == 0
        ? job.gpuCount() / job.gangSize() : 1;
  }

  /** Sum of weights. */
  public long total() {
    long t = 0;
    for (long c : counts.values()) {
      t += c;
    }
    return t;
  }
}
