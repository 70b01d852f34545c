package io.tideline.simulator;

import io.tideline.events.GpuAssignment;
import io.tideline.events.JobSubmitted;
import io.tideline.events.PlacementDecision;
import io.tideline.events.WorkloadClass;
import io.tideline.platform.kernel.HostRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Audits what a run published, independently of the schedulers' own books: folds every placement
 * decision (PLACED and MIGRATED bind, RELEASED frees) into GPU shares and checks the invariants a
 * platform engineer relies on. Each finding is a sentence; an empty list is a clean run.
 */
final class LedgerAudit {

  /** One GPU of one node. */
  record Gpu(String node, int index) {}

  private final Map<Gpu, Double> used = new HashMap<>();
  private final Map<String, List<GpuAssignment>> bound = new TreeMap<>();
  private final Map<String, JobSubmitted> submitted = new HashMap<>();
  private final Map<String, Integer> shrunkTo = new HashMap<>();
  private final Set<String> inferencePartition;
  final List<String> findings = new ArrayList<>();

  /** {@code inferencePartition}: nodes only online inference may use (hard split), or empty. */
  LedgerAudit(Set<String> inferencePartition) {
    this.inferencePartition = inferencePartition;
  }

  /** Feeds one published or world record, in the order produced. */
  void accept(HostRecord r) {
    if (r.value() instanceof JobSubmitted j) {
      submitted.putIfAbsent(j.getJobId(), j);
    } else if (r.value() instanceof PlacementDecision d) {
      decision(d);
    } else if (r.value() instanceof io.tideline.events.Eviction e && e.getShrinkToGpus() != null) {
      shrunkTo.put(e.getJobId(), e.getShrinkToGpus());
    }
  }

  private void decision(PlacementDecision d) {
    switch (d.getOutcome()) {
      case PLACED, MIGRATED -> {
        free(d.getJobId());
        bind(d);
      }
      case RELEASED -> free(d.getJobId());
      default -> { }
    }
  }

  private void bind(PlacementDecision d) {
    String job = d.getJobId();
    JobSubmitted j = submitted.get(job);
    double total = 0;
    for (GpuAssignment a : d.getAssignments()) {
      Gpu g = new Gpu(a.getNodeId(), a.getGpuIndex());
      double now = used.merge(g, a.getShare(), Double::sum);
      if (now > 1 + 1e-9) {
        findings.add(d.getDecidedAt() + ": GPU " + g + " allocated " + now + " by " + job);
      }
      total += a.getShare();
      if (j != null && !inferencePartition.isEmpty()) {
        boolean online = j.getWorkloadClass() == WorkloadClass.ONLINE_INFERENCE;
        if (online != inferencePartition.contains(a.getNodeId())) {
          findings.add(d.getDecidedAt() + ": " + job + (online ? " (online)" : " (offline)")
              + " placed on " + a.getNodeId() + " across the hard split");
        }
      }
    }
    if (j != null && j.getResources().getGpuCount() > 1) {
      int want = shrunkTo.getOrDefault(job, j.getResources().getGpuCount());
      if (Math.abs(total - want) > 1e-9) {
        findings.add(d.getDecidedAt() + ": gang " + job + " of " + want + " GPUs placed on "
            + total + " (all or nothing)");
      }
      int workers = Math.max(1, j.getResources().getGangSize());
      double worker = j.getResources().getGpuCount() / (double) workers;
      Map<String, Double> perNode = new TreeMap<>();
      d.getAssignments().forEach(a -> perNode.merge(a.getNodeId(), a.getShare(), Double::sum));
      perNode.forEach((node, gpus) -> {
        double workersHere = gpus / worker;
        if (want == j.getResources().getGpuCount()
            && Math.abs(workersHere - Math.rint(workersHere)) > 1e-9) {
          findings.add(d.getDecidedAt() + ": a worker of " + job + " (" + worker
              + " GPUs) spans nodes: " + gpus + " GPUs on " + node);
        }
      });
    }
    bound.put(job, d.getAssignments());
  }

  private void free(String job) {
    List<GpuAssignment> was = bound.remove(job);
    if (was != null) {
      for (GpuAssignment a : was) {
        used.merge(new Gpu(a.getNodeId(), a.getGpuIndex()), -a.getShare(), Double::sum);
      }
    }
  }
}
