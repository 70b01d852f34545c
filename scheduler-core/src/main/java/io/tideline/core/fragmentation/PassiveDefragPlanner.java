package io.tideline.core.fragmentation;

import io.tideline.core.cluster.GpuModelNames;

import io.tideline.core.slots.SlotClass;
import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import io.tideline.core.trace.TraceEntry;
import io.tideline.core.placement.UnplaceableReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Plans the migrations that would let a job placement just refused for fragmentation fit (T3):
 * free whole nodes (and, for multi-node gangs, nodes in one domain) by moving the smallest
 * instances off them.
 *
 * <p>Steps: (1) re-decide the job; only a FRAGMENTED refusal is this planner's business; (2)
 * refuse at PEAK (T4) and read the remaining rate-limit budget; (3) the job needs {@code piece}
 * idle GPUs together on each node it uses ({@link DemandHistogram#shapeOf}); (4) for every
 * eligible node short of a piece, find the cheapest set of movable jobs whose departure frees
 * enough GPUs — GPUs emptied cheapest first, i.e. the smallest instances that strand the most;
 * (5) take the best target (closest to targets already chosen, then cheapest, then most
 * fragmented, then node id), move its jobs elsewhere with the targets closed, and drop the target
 * if any job fits nowhere or the budget would burst; (6) stop as soon as the job places on the
 * resulting ledger. Only a complete plan is returned; otherwise no migration at all.
 */
public final class PassiveDefragPlanner {

  private final DefragConfig config;
  private final Placer placer;
  private final JobMover mover;

  public PassiveDefragPlanner(DefragConfig config, Placer placer) {
    this.config = config;
    this.placer = placer;
    this.mover = new JobMover(placer);
  }

  /**
   * The migrations that would make {@code job} placeable; never applied.
   *
   * @param now event time
   * @param snapshot the current ledger
   * @param job the job whose placement failed
   * @param slot the current slot class (no migration at PEAK)
   * @param recent migrations already executed (only those in the T4 window count)
   */
  public DefragPlan plan(Instant now, ClusterSnapshot snapshot, JobRequest job, SlotClass slot,
      Collection<PastMigration> recent) {
    Topology topo = snapshot.topology();
    int piece = Math.min(DemandHistogram.shapeOf(job), topo.maxGpusPerNode());
    FragmentationIndex index = new FragmentationIndex(
        new DemandHistogram(new TreeMap<>(Map.of(piece, 1L))));
    double before = index.cluster(snapshot).index();
    List<TraceEntry> trace = new ArrayList<>();
    // 1. only a fragmentation failure is ours
    PlacementDecision now0 = placer.decide(now, snapshot, job);
    if (now0.placed() || now0.reason() != UnplaceableReason.FRAGMENTED) {
      trace.add(new TraceEntry(job.jobId(), "T3 passive defrag", "not needed", now0.placed()
          ? "the job places as it is" : "refused for " + now0.reason() + ", not fragmentation"));
      return new DefragPlan(List.of(), 0, 0, before, before, now0.placed() ? now0 : null, trace);
    }
    // 2. slot and budget (T4)
    if (slot == SlotClass.PEAK) {
      trace.add(new TraceEntry(job.jobId(), "T4 slot", "refused", "never at peak"));
      return new DefragPlan(List.of(), 0, 0, before, before, null, trace);
    }
    double budget = MigrationBudget.remaining(config, now, topo.totalGpus(), recent);
    trace.add(new TraceEntry("cluster", "T4 rate limit", "budget",
        MigrationBudget.describe(config, topo.totalGpus(), budget)));
    trace.add(new TraceEntry(job.jobId(), "T3 passive defrag", "target",
        "needs " + piece + " idle GPUs together on each node it uses"));
    // 3-5. free targets one by one until the job places
    ClusterSnapshot hyp = snapshot;
    MigrationList out = new MigrationList();
    List<Integer> targets = new ArrayList<>();
    Set<Integer> rejected = new TreeSet<>();
    // a node's candidate depends only on the ledger and the targets, which change together: a
    // round that skips a target reuses the candidates of the round before instead of re-deriving
    // every node's (same decisions, one search per ledger)
    Candidate[] candidates = null;
    ClusterSnapshot searched = null;
    int searchedTargets = -1;
    while (true) {
      if (searched != hyp || searchedTargets != targets.size()) {
        candidates = new Candidate[topo.size()];
        for (int n = 0; n < topo.size(); n++) {
          if (!targets.contains(n) && !rejected.contains(n)) {
            candidates[n] = candidate(now, hyp, job, n, piece, index, targets,
                placer.config().gpuModels());
          }
        }
        searched = hyp;
        searchedTargets = targets.size();
      }
      Candidate best = null;
      for (int n = 0; n < topo.size(); n++) {
        if (targets.contains(n) || rejected.contains(n)) {
          continue;
        }
        Candidate c = candidates[n];
        if (c != null && (best == null || c.compareTo(best) < 0)) {
          best = c;
        }
      }
      if (best == null) {
        trace.add(new TraceEntry(job.jobId(), "T3 passive defrag", "no plan",
            "no set of movable jobs frees enough GPUs within the budget"));
        return new DefragPlan(List.of(), 0, budget, before, before, null, trace);
      }
      String nodeId = topo.node(best.node).id();
      double spent = out.gpuShare();
      double added = out.addedCost(shares(hyp, best.jobs));
      if (spent + added > budget + ClusterSnapshot.SHARE_EPSILON
          || out.size() + best.jobs.size() > config.maxMigrationsPerPlan()) {
        rejected.add(best.node);
        trace.add(new TraceEntry(nodeId, "T4 rate limit", "skipped", String.format(Locale.ROOT,
            "freeing it moves %.2f more GPUs, %.2f left", added, budget - spent)));
        continue;
      }
      String reason = String.format(Locale.ROOT,
          "passive defrag: free %d GPUs on node %s for job %s", piece, nodeId, job.jobId());
      TreeSet<String> closed = new TreeSet<>();
      targets.forEach(t -> closed.add(topo.node(t).id()));
      closed.add(nodeId);
      List<Allocation> toMove = new ArrayList<>();
      for (String jobId : best.jobs) {
        toMove.add(hyp.allocations().get(jobId));
      }
      JobMover.Evacuation evac = mover.evacuate(now, hyp, toMove, closed, reason);
      if (evac == null) {
        rejected.add(best.node);
        trace.add(new TraceEntry(nodeId, "T3 passive defrag", "skipped",
            "a job on it fits nowhere else"));
        continue;
      }
      trace.add(new TraceEntry(nodeId, "T3 passive defrag", "free", String.format(Locale.ROOT,
          "move %d job(s), %.2f GPUs: %s", evac.moves().size(), best.cost, best.jobs)));
      evac.moves().forEach(out::add);
      targets.add(best.node);
      hyp = evac.after();
      // 6. done as soon as the job fits
      PlacementDecision unlocked = placer.decide(now, hyp, job);
      if (unlocked.placed()) {
        double after = index.cluster(hyp).index();
        trace.add(new TraceEntry(job.jobId(), "T3 passive defrag", "plan", String.format(
            Locale.ROOT, "%d migration(s), %.2f GPUs; job then places on %s", out.size(),
            out.gpuShare(), unlocked.nodeIds())));
        return new DefragPlan(out.toList(), out.gpuShare(), budget, before, after, unlocked,
            trace);
      }
    }
  }

  /**
   * What freeing node {@code n} for the job would take, or {@code null} if it cannot serve the job
   * or has enough already.
   */
  private static Candidate candidate(Instant now, ClusterSnapshot snap, JobRequest job, int n,
      int piece, FragmentationIndex index, List<Integer> targets, GpuModelNames names) {
    Topology topo = snap.topology();
    if (snap.isCordoned(n) || !names.allows(job.allowedGpuModels(), topo.node(n).gpuModel())) {
      return null;
    }
    NodeLedger l = snap.ledger(n);
    if (l.gpuCount() < piece) {
      return null;
    }
    // 1. usable GPUs: idle ones the job may take; busy ones ordered by how cheap they are to empty
    int free = 0;
    List<Integer> busy = new ArrayList<>();
    for (int g = 0; g < l.gpuCount(); g++) {
      if (!permits(snap, n, g, job, now)) {
        continue;
      }
      if (l.isIdle(g)) {
        free++;
      } else {
        busy.add(g);
      }
    }
    if (free >= piece) {
      return null;
    }
    busy.sort(Comparator.<Integer>comparingDouble(l::used).thenComparingInt(g -> g));
    // 2. add the holders of the cheapest GPUs until enough GPUs would be empty
    TreeSet<String> jobs = new TreeSet<>();
    for (int g : busy) {
      boolean movable = true;
      for (String holder : l.holders(g).keySet()) {
        movable &= JobMover.movable(snap.allocations().get(holder));
      }
      if (!movable) {
        continue;
      }
      jobs.addAll(l.holders(g).keySet());
      int emptied = 0;
      for (int h : busy) {
        if (jobs.containsAll(l.holders(h).keySet())) {
          emptied++;
        }
      }
      if (free + emptied >= piece) {
        double cost = 0;
        for (String j : jobs) {
          cost += snap.allocations().get(j).gpuShare();
        }
        List<String> ordered = new ArrayList<>(jobs);
        ordered.sort(Comparator.<String>comparingDouble(
            j -> snap.allocations().get(j).gpuShare()).thenComparing(j -> j));
        return new Candidate(n, ordered, cost, index.node(snap, n).index(),
            distance(topo, n, targets), topo.node(n).id());
      }
    }
    return null;
  }

  private static Map<String, Double> shares(ClusterSnapshot snap, List<String> jobs) {
    Map<String, Double> m = new TreeMap<>();
    jobs.forEach(j -> m.put(j, snap.allocations().get(j).gpuShare()));
    return m;
  }

  private static boolean permits(ClusterSnapshot snap, int n, int g, JobRequest job, Instant now) {
    for (Reservation r : snap.reservationsOn(n, g)) {
      if (!r.permits(job, now)) {
        return false;
      }
    }
    return true;
  }

  /** Smallest topology level at which {@code n} shares a domain with a chosen target; 0 if none. */
  private static int distance(Topology topo, int n, List<Integer> targets) {
    if (targets.isEmpty()) {
      return 0;
    }
    int best = TopologyLevel.CLUSTER.ordinal();
    for (int t : targets) {
      for (TopologyLevel level : TopologyLevel.values()) {
        if (topo.domainOf(level, n) == topo.domainOf(level, t)) {
          best = Math.min(best, level.ordinal());
          break;
        }
      }
    }
    return best;
  }

  /** A node that could be freed: nearest to earlier targets, cheapest, most fragmented, by id. */
  private record Candidate(int node, List<String> jobs, double cost, double fragmentation,
      int distance, String nodeId) implements Comparable<Candidate> {

    private static final Comparator<Candidate> ORDER = Comparator
        .comparingInt(Candidate::distance)
        .thenComparingDouble(Candidate::cost)
        .thenComparing(Comparator.comparingDouble(Candidate::fragmentation).reversed())
        .thenComparing(Candidate::nodeId);

    @Override
    public int compareTo(Candidate o) {
      return ORDER.compare(this, o);
    }
  }
}
