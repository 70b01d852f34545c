package io.tideline.core.fragmentation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The migrations of a plan in the making. A job moved twice (it landed on a node a later step
 * frees) becomes one migration from its original place to its final one, and is counted once
 * against the budget; a job that ends where it started is dropped. The merged migration goes last:
 * its destination was chosen after every earlier move, and its source lies on a node the plan
 * closed, so no earlier move depends on it having left.
 */
final class MigrationList {

  private final LinkedHashMap<String, Migration> byJob = new LinkedHashMap<>();

  /** GPU share the given jobs would add to the plan (jobs already moving cost nothing more). */
  double addedCost(Map<String, Double> shareByJob) {
    double s = 0;
    for (Map.Entry<String, Double> e : shareByJob.entrySet()) {
      if (!byJob.containsKey(e.getKey())) {
        s += e.getValue();
      }
    }
    return s;
  }

  void add(Migration m) {
    Migration earlier = byJob.remove(m.jobId());
    if (earlier == null) {
      byJob.put(m.jobId(), m);
      return;
    }
    Migration merged = new Migration(m.jobId(), earlier.from(), m.to(), m.reason());
    if (!sameGpus(merged)) {
      byJob.put(m.jobId(), merged);
    }
  }

  private static boolean sameGpus(Migration m) {
    return m.from().size() == m.to().size() && m.from().containsAll(m.to());
  }

  int size() {
    return byJob.size();
  }

  double gpuShare() {
    double s = 0;
    for (Migration m : byJob.values()) {
      s += m.gpuShare();
    }
    return s;
  }

  List<Migration> toList() {
    return new ArrayList<>(byJob.values());
  }
}
