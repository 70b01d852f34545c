package io.tideline.core.fragmentation;

import io.tideline.core.slots.SlotClass;
import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.placement.Placer;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Plans background defragmentation in quiet slots (T3, T4): evacuate the most fragmented nodes so
 * their idle GPUs merge into whole free nodes, within the migration rate limit.
 *
 * <p>Steps: (1) refuse at PEAK and outside the configured slots; (2) compute the remaining T4
 * budget; (3) walk nodes most fragmented first (index desc, then cheapest to empty, then id);
 * (4) for each node whose jobs are all {@linkplain JobMover#movable movable} and fit in the
 * budget, re-place its jobs (smallest first) elsewhere with the node and already-evacuated nodes
 * closed; (5) keep the evacuation only if every job found a place and the cluster's stranded idle
 * GPUs strictly drop; (6) stop at the budget or the per-plan cap.
 */
public final class ActiveDefragPlanner {

  private final DefragConfig config;
  private final JobMover mover;

  public ActiveDefragPlanner(DefragConfig config, Placer placer) {
    this.config = config;
    this.mover = new JobMover(placer);
  }

  /**
   * The migrations to run now; never applied.
   *
   * @param now event time
   * @param snapshot the current ledger
   * @param slot the current slot class (F4)
   * @param demand the demanded shapes that define fragmentation
   * @param recent migrations already executed (only those in the T4 window count)
   */
  public DefragPlan plan(Instant now, ClusterSnapshot snapshot, SlotClass slot,
      DemandHistogram demand, Collection<PastMigration> recent) {
    FragmentationIndex index = new FragmentationIndex(demand);
    List<TraceEntry> trace = new ArrayList<>();
    int gpus = snapshot.topology().totalGpus();
    double before = index.cluster(snapshot).index();
    // 1. slot gate
    if (slot == SlotClass.PEAK || !config.activeSlots().contains(slot)) {
      trace.add(new TraceEntry("cluster", "T4 slot", "refused", slot == SlotClass.PEAK
          ? "never at peak" : slot + " is not an active defragmentation slot "
          + config.activeSlots()));
      return new DefragPlan(List.of(), 0, 0, before, before, null, trace);
    }
    // 2. budget
    double budget = MigrationBudget.remaining(config, now, gpus, recent);
    trace.add(new TraceEntry("cluster", "T4 rate limit", "budget",
        MigrationBudget.describe(config, gpus, budget)));
    // 3. most fragmented first, cheapest to empty among equals
    List<NodeFragmentation> order = new ArrayList<>(index.cluster(snapshot).nodes());
    order.sort(Comparator.comparingDouble(NodeFragmentation::index).reversed()
        .thenComparingDouble(NodeFragmentation::usedShare)
        .thenComparing(NodeFragmentation::nodeId));
    ClusterSnapshot hyp = snapshot;
    double stranded = index.strandedGpus(hyp);
    MigrationList out = new MigrationList();
    TreeSet<String> evacuated = new TreeSet<>();
    TreeMap<String, Integer> skipped = new TreeMap<>();
    for (NodeFragmentation stale : order) {
      // earlier evacuations may have filled this node: judge it on the current plan state
      NodeFragmentation f = index.node(hyp, hyp.topology().indexOf(stale.nodeId()));
      if (f.index() <= 0 || f.usedShare() <= 0 || hyp.isCordoned(
          hyp.topology().indexOf(f.nodeId()))) {
        continue;
      }
      double spent = out.gpuShare();
      if (budget - spent <= ClusterSnapshot.SHARE_EPSILON
          || out.size() >= config.maxMigrationsPerPlan()) {
        break;
      }
      // 4. every job on the node must be movable and the lot must fit the budget
      List<Allocation> jobs = jobsOn(hyp, f.nodeId());
      if (!jobs.stream().allMatch(JobMover::movable)) {
        skipped.merge("holds a job that may not move (multi-node gang or not preemptible)", 1,
            Integer::sum);
        continue;
      }
      TreeMap<String, Double> shares = new TreeMap<>();
      jobs.forEach(a -> shares.put(a.jobId(), a.gpuShare()));
      double cost = out.addedCost(shares);
      if (spent + cost > budget + ClusterSnapshot.SHARE_EPSILON
          || out.size() + jobs.size() > config.maxMigrationsPerPlan()) {
        skipped.merge("emptying it would exceed the T4 budget or the per-plan cap", 1,
            Integer::sum);
        continue;
      }
      // 5. move its jobs smallest first; keep only a complete evacuation that reduces stranding
      String reason = String.format(Locale.ROOT,
          "active defrag (%s): empty node %s, fragmentation index %.2f", slot, f.nodeId(),
          f.index());
      TreeSet<String> closed = new TreeSet<>(evacuated);
      closed.add(f.nodeId());
      JobMover.Evacuation evac = mover.evacuate(now, hyp, jobs, closed, reason);
      if (evac == null) {
        skipped.merge("a job on it fits nowhere else", 1, Integer::sum);
        continue;
      }
      double strandedAfter = index.strandedGpus(evac.after());
      if (strandedAfter >= stranded - ClusterSnapshot.SHARE_EPSILON) {
        skipped.merge("emptying it would not reduce stranded idle GPUs", 1, Integer::sum);
        continue;
      }
      trace.add(new TraceEntry(f.nodeId(), "T3 active defrag", "evacuate", String.format(
          Locale.ROOT, "index %.2f, %d job(s), %.2f GPUs moved; stranded GPUs %.2f → %.2f",
          f.index(), evac.moves().size(), cost, stranded, strandedAfter)));
      evac.moves().forEach(out::add);
      stranded = strandedAfter;
      hyp = evac.after();
      evacuated.add(f.nodeId());
    }
    skipped.forEach((why, count) -> trace.add(new TraceEntry(count + " node(s)",
        "T3 active defrag", "skipped", why)));
    double after = index.cluster(hyp).index();
    return new DefragPlan(out.toList(), out.gpuShare(), budget, before, after, null, trace);
  }

  /** Running jobs with a share on {@code nodeId}, smallest first, then by id. */
  static List<Allocation> jobsOn(ClusterSnapshot snap, String nodeId) {
    List<Allocation> jobs = new ArrayList<>();
    for (String id : snap.ledger(nodeId).jobs()) {
      jobs.add(snap.allocations().get(id));
    }
    jobs.sort(Comparator.comparingDouble(Allocation::gpuShare).thenComparing(Allocation::jobId));
    return jobs;
  }
}
