package io.tideline.core.placement;

import io.tideline.core.trace.TraceEntry;
import io.tideline.core.cluster.Allocation;
import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.GpuRef;
import io.tideline.core.cluster.NodeLedger;
import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.ResourceFit;
import io.tideline.core.cluster.Topology;
import io.tideline.core.cluster.TopologyLevel;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides where one job's GPUs go on a snapshot (T1, T2, T5, W3, F2): a pure function of
 * {@code now}, the ledger and the request.
 *
 * <p>Rules, in the order applied:
 * <ol>
 *   <li><b>Shape.</b> A fractional instance ({@code gpuCount == 1, gpuShare < 1}) takes a share of
 *       one GPU. A whole-GPU job of {@code gpuCount} GPUs is a gang (W3): placed entirely or not
 *       at all. With {@code nodes > 0} it is spread evenly over exactly that many nodes (counts
 *       differ by at most one). With {@code nodes == 0} placement chooses; each of the
 *       {@code gangSize} workers holds {@code gpuCount / gangSize} GPUs and a worker never spans
 *       nodes (so an 8-GPU single-worker job needs one node with 8 idle GPUs, while 8 one-GPU
 *       workers may spread). If {@code gangSize} does not divide {@code gpuCount}, GPUs are
 *       placed singly.
 *   <li><b>Eligibility.</b> A GPU is eligible when its node carries an allowed model (T5; empty
 *       list = any), the node is not cordoned, and every reservation on it
 *       {@linkplain Reservation#permits permits} the job (F2). Whole-GPU jobs take idle GPUs only.
 *   <li><b>Node resources (T5, ADR 0030).</b> Each worker (pod) asks the request's CPU, memory
 *       and extended resources; a node holding {@code k} of the job's GPUs hosts
 *       {@link JobRequest#workersFor workersFor(k)} workers, so a node offers only as many GPUs as
 *       the workers its free resources hold. A node's undeclared CPU or memory never limits. The
 *       trace names each resource that limited a node ("cpu: needs 8000m, node has 2000m free").
 *       A job of 0 GPUs is {@code gangSize} pods of resources only: all on the tightest node that
 *       holds them all (fewest pods it has room for, then fewest idle GPUs, then node index),
 *       else spread over the roomiest nodes first (node index on ties); reservations hold GPUs
 *       only and do not keep such pods away; its score is 1.
 *   <li><b>Smallest domain first (T1).</b> Levels NODE → NVLINK_ISLAND → ASW → PSW → DSW →
 *       CLUSTER are tried in order; the first level with a domain that fits wins. Among fitting
 *       domains the best fit wins (fewest usable GPUs, then fewest idle GPUs, then domain key). Beyond ASW the decision
 *       is {@code crossDomain} and the score pays the bandwidth penalty per switch tier.
 *   <li><b>Best fit inside the domain.</b> Recursively: if a child domain can hold the rest, take
 *       the tightest such child; otherwise fill the largest child completely and continue. At a
 *       node, the lowest-index eligible GPUs are taken. This uses the fullest nodes that fit and
 *       keeps whole nodes free.
 *   <li><b>Fractional packing (T2).</b> A fractional instance goes to an already-shared GPU when
 *       one fits (tightest remaining share, then fullest node, then node id, GPU index); an idle
 *       GPU is broken only when none does, and then on the fullest node.
 *   <li><b>Fragmentation score (ADR 0037, opt-in).</b> With {@link NodeScoring.Rule#FRAGMENTATION}
 *       and a non-empty {@link DemandMix} (the configured one, or the live one the queue pass
 *       hands over, ADR 0038), every single-node choice (the NODE level of rule 4, a
 *       fractional instance's GPU, the single node of a GPU-less job) first minimises the growth
 *       of the node's expected fragmentation under the mix ({@link FragmentationScore}: free GPU
 *       the expected shapes could not use, for their model, CPU, memory, share or GPU count);
 *       growths within {@link NodeScoring#tolerance} tie and the best-fit keys above decide, then
 *       the index (fractional ties: a shared GPU before an idle one, tightest leftover, fullest
 *       node, node index, GPU index). The trace's "T2 fragmentation score" entry names the node
 *       and the growth. Multi-node layouts keep the best-fit rules. The default is best fit.
 * </ol>
 *
 * <p>Score = fit × {@code (1 - crossSwitchSlowdown)^tiers}, where fit is the mean allocated share
 * of the chosen nodes after placement (fractional: of the chosen GPU).
 */
public final class Placer {

  private static final TopologyLevel[] LEVELS = TopologyLevel.values();

  private final PlacementConfig config;
  /**
   * The fragmentation term of the last topology decided on, with its per-node views (ADR 0037):
   * a memo, so a node whose ledger did not change since the last decision is not read again.
   * Decisions do not depend on it (a stale or concurrent entry is recomputed); null before the
   * first fragmentation-scored decision.
   */
  private volatile FragmentationScore fragmentation;

  /** The tunables this placer decides with (its GPU model matching is shared with the planners). */
  public PlacementConfig config() {
    return config;
  }

  public Placer(PlacementConfig config) {
    this.config = config;
  }

  /**
   * Where {@code job} goes on {@code snapshot} at {@code now}; see the class rules. The
   * fragmentation rule measures against the configured mix.
   */
  public PlacementDecision decide(Instant now, ClusterSnapshot snapshot, JobRequest job) {
    return decide(now, snapshot, job, config.scoring().mix());
  }

  /**
   * {@link #decide(Instant, ClusterSnapshot, JobRequest)} with the fragmentation rule measuring
   * against {@code expected} (the queue pass's live mix, ADR 0038); under best fit, or with an
   * empty mix, the mix plays no part.
   */
  public PlacementDecision decide(Instant now, ClusterSnapshot snapshot, JobRequest job,
      DemandMix expected) {
    return new Attempt(now, snapshot, job, expected).run();
  }

  /**
   * Whether and where {@code job} would go if {@code releasedJobs} held nothing: the preemption
   * question "if these victims were evicted, would the preemptor fit?". The decision's
   * {@code ledgerVersion} is that of the hypothetical snapshot; the victims' GPUs appear in the
   * assignments exactly as freed GPUs would.
   */
  public PlacementDecision decideIfReleased(Instant now, ClusterSnapshot snapshot, JobRequest job,
      Set<String> releasedJobs) {
    return decide(now, snapshot.withoutJobs(releasedJobs), job);
  }

  /** Applies a PLACED decision to the ledger; fails for an unplaceable one. */
  public static ClusterSnapshot apply(ClusterSnapshot snapshot, JobRequest job,
      PlacementDecision decision) {
    if (!decision.placed()) {
      throw new IllegalArgumentException("decision for " + decision.jobId() + " is unplaceable");
    }
    return snapshot.withAllocation(new Allocation(job, decision.assignments(),
        decision.workers().isEmpty() ? Allocation.workersOf(job, decision.assignments())
            : decision.workers()));
  }

  /**
   * The fragmentation term for {@code topo} and {@code mix}, kept while the topology stays the
   * same object and the mix the same.
   */
  private FragmentationScore fragmentationFor(Topology topo, DemandMix mix) {
    FragmentationScore f = fragmentation;
    if (f == null || f.topology() != topo || !f.mix().equals(mix)) {
      f = new FragmentationScore(mix, topo, config.gpuModels());
      fragmentation = f;
    }
    return f;
  }

  /** One decision's working state: scratch arrays sized to the cluster. */
  private final class Attempt {
    private final Instant now;
    private final ClusterSnapshot snap;
    private final Topology topo;
    private final JobRequest job;
    private final List<TraceEntry> trace = new ArrayList<>();
    private final boolean[] modelOk;
    /** Reservation id → GPUs it kept from this job that would otherwise have fit. */
    private final TreeMap<String, Integer> heldBy = new TreeMap<>();
    /** Why a layout step found nothing (set with its trace entry). */
    private UnplaceableReason failReason;
    private boolean reservationsTraced;
    /** What one worker asks besides GPUs, and whether it asks anything. */
    private final Resources ask;
    private final boolean asks;
    /** Workers each node still has room for (-1 = not computed yet); null if nothing is asked. */
    private final long[] room;
    /** Resource name → [nodes it limited, example node index] (the node with most free of it). */
    private final TreeMap<String, long[]> limitedBy = new TreeMap<>();
    private final TreeMap<String, ResourceFit.Shortfall> limitExample = new TreeMap<>();
    private boolean[] limitNoted;
    private boolean resourcesTraced;
    /** The fragmentation term (ADR 0037), or null when nodes are ranked by best fit alone. */
    private final FragmentationScore frag;

    Attempt(Instant now, ClusterSnapshot snap, JobRequest job, DemandMix expected) {
      this.now = now;
      this.snap = snap;
      this.topo = snap.topology();
      this.job = job;
      this.modelOk = new boolean[topo.gpuModels().size()];
      this.ask = job.resources();
      this.asks = !ask.isNone();
      this.room = asks ? new long[topo.size()] : null;
      if (asks) {
        java.util.Arrays.fill(room, -1);
      }
      this.frag = config.scoring().rule() == NodeScoring.Rule.FRAGMENTATION && !expected.isEmpty()
          ? fragmentationFor(topo, expected) : null;
    }

    PlacementDecision run() {
      // 1. shape sanity: the admission check owns validation, placement only refuses the absurd
      if (job.gpuless()) {
        if (!asks || job.nodes() != 0 || job.gangSize() < 0) {
          return fail(UnplaceableReason.INVALID_SHAPE, "W3 gang shape", "no GPUs, "
              + (asks ? "nodes " + job.nodes() + ", gangSize " + job.gangSize()
              : "and no CPU, memory or extended resource asked"));
        }
      } else if (job.gpuCount() < 0 || !(job.gpuShare() > 0 && job.gpuShare() <= 1.0)
          || job.nodes() < 0 || job.nodes() > job.gpuCount()) {
        return fail(UnplaceableReason.INVALID_SHAPE, "W3 gang shape", "gpuCount "
            + job.gpuCount() + ", gpuShare " + job.gpuShare() + ", nodes " + job.nodes());
      }
      // 2. GPU models (T5)
      int models = 0;
      List<String> allowed = job.allowedGpuModels();
      for (int m = 0; m < modelOk.length; m++) {
        modelOk[m] = config.gpuModels().allows(allowed, topo.gpuModels().get(m));
        models += modelOk[m] ? 1 : 0;
      }
      if (models == 0) {
        return fail(UnplaceableReason.NO_MATCHING_GPU_MODEL, "T5 GPU model",
            "allowed " + allowed + " but the fleet has " + topo.gpuModels());
      }
      trace.add(new TraceEntry(job.jobId(), "T5 GPU model", "matched", allowed.isEmpty()
          ? "any model" : "allowed " + allowed + " → " + models + " of "
          + modelOk.length + " fleet models"));
      return job.gpuless() ? placePods() : job.fractional() ? placeFractional() : placeGang();
    }

    // ---------------------------------------------------------------- pods without GPUs

    private PlacementDecision placePods() {
      int pods = Math.max(1, job.gangSize());
      String rule = "T5 node resources";
      // 1. the tightest node holding every pod: fewest pods of room, fewest idle GPUs, index
      //    (fragmentation scoring: least growth of expected fragmentation first)
      int single = -1;
      double singleDelta = 0;
      double tol = config.scoring().tolerance();
      List<Integer> roomy = new ArrayList<>();
      for (int n = 0; n < topo.size(); n++) {
        if (!nodeEligible(n)) {
          continue;
        }
        long r = room(n, pods);
        if (r > 0) {
          roomy.add(n);
        }
        if (r < pods) {
          continue;
        }
        double delta = frag == null ? 0
            : frag.wholeDelta(frag.view(snap, n), 0, ask.times(pods));
        if (single < 0 || delta < singleDelta - tol || (delta <= singleDelta + tol
            && (r < room(single, pods) || (r == room(single, pods)
            && snap.ledger(n).idleGpus() < snap.ledger(single).idleGpus())))) {
          single = n;
          singleDelta = delta;
        }
      }
      if (single >= 0 && frag != null) {
        traceFragmentation(single, singleDelta);
      }
      TreeMap<String, Integer> workers = new TreeMap<>();
      List<Integer> chosen = new ArrayList<>();
      if (single >= 0) {
        workers.put(topo.node(single).id(), pods);
        chosen.add(single);
      } else {
        // 2. spread: roomiest nodes first, node index on ties
        roomy.sort(Comparator.<Integer>comparingLong(n -> -room(n, pods)).thenComparingInt(n -> n));
        int rest = pods;
        for (int n : roomy) {
          if (rest == 0) {
            break;
          }
          int k = (int) Math.min(rest, room(n, pods));
          workers.put(topo.node(n).id(), k);
          chosen.add(n);
          rest -= k;
        }
        if (rest > 0) {
          traceResources();
          return fail(UnplaceableReason.INSUFFICIENT_CAPACITY, rule, "needs " + pods
              + " pod(s) of " + ask + ", eligible nodes have room for " + (pods - rest));
        }
      }
      traceResources();
      for (int n : chosen) {
        trace.add(new TraceEntry(topo.node(n).id(), rule, "selected", "takes "
            + workers.get(topo.node(n).id()) + " pod(s) of " + ask + " and no GPU"));
      }
      TopologyLevel level = commonLevel(chosen);
      return new PlacementDecision(job.jobId(), snap.version(), true, List.of(), null, level,
          level.crossesSwitchDomain(), 1.0, trace, workers);
    }

    /** The smallest level whose one domain holds every node of {@code nodes}. */
    private TopologyLevel commonLevel(List<Integer> nodes) {
      for (TopologyLevel level : LEVELS) {
        int d = topo.domainOf(level, nodes.get(0));
        boolean same = true;
        for (int n : nodes) {
          same &= topo.domainOf(level, n) == d;
        }
        if (same) {
          return level;
        }
      }
      return TopologyLevel.CLUSTER;
    }

    // ---------------------------------------------------------------- node resources

    /**
     * Workers of this job node {@code n} still has room for ({@link Long#MAX_VALUE} when nothing
     * it asks is constrained there); a node with room for fewer than {@code wanted} is noted
     * for the trace with the resource that limits it.
     */
    private long room(int n, long wanted) {
      if (!asks) {
        return Long.MAX_VALUE;
      }
      if (room[n] < 0) {
        room[n] = ResourceFit.workersThatFit(topo.node(n).allocatable(),
            snap.ledger(n).allocated(), ask);
      }
      if (room[n] < wanted) {
        noteLimit(n);
      }
      return room[n];
    }

    private void noteLimit(int n) {
      if (limitNoted == null) {
        limitNoted = new boolean[topo.size()];
      }
      if (limitNoted[n]) {
        return;
      }
      limitNoted[n] = true;
      // the resource that stops one more worker, and how much of it is free
      ResourceFit.Shortfall s = ResourceFit.shortfall(topo.node(n).allocatable(),
          snap.ledger(n).allocated(), ask.times((int) Math.min(Integer.MAX_VALUE, room[n] + 1)));
      if (s == null) {
        return;
      }
      ResourceFit.Shortfall perWorker = new ResourceFit.Shortfall(s.resource(),
          s.needs() / (room[n] + 1), s.free());
      long[] c = limitedBy.computeIfAbsent(s.resource(), k -> new long[] {0, n});
      c[0]++;
      ResourceFit.Shortfall ex = limitExample.get(s.resource());
      if (ex == null || perWorker.free() > ex.free()) {
        limitExample.put(s.resource(), perWorker);
        c[1] = n;
      }
    }

    private void traceResources() {
      if (resourcesTraced) {
        return;
      }
      resourcesTraced = true;
      for (Map.Entry<String, long[]> e : limitedBy.entrySet()) {
        int n = (int) e.getValue()[1];
        trace.add(new TraceEntry(topo.node(n).id(), "T5 node resources", "limited",
            e.getValue()[0] + " node(s) short of " + e.getKey() + "; roomiest: "
                + limitExample.get(e.getKey()).describe() + " per worker, room for " + room[n]
                + " worker(s) of " + ask));
      }
    }

    // ---------------------------------------------------------------- fractional instances

    private PlacementDecision placeFractional() {
      double share = job.gpuShare();
      int bestNode = -1;
      int bestGpu = -1;
      double bestFree = Double.MAX_VALUE;
      int bestIdle = Integer.MAX_VALUE;
      if (frag != null) {
        return fractionalByFragmentation(share);
      }
      // 1. tightest already-shared GPU that fits, fullest node, node/GPU index as tie-break
      for (int n = 0; n < topo.size(); n++) {
        if (!nodeEligible(n)) {
          continue;
        }
        NodeLedger l = snap.ledger(n);
        if (l.partialGpus() == 0 || room(n, 1) < 1) {
          continue;
        }
        for (int g = 0; g < l.gpuCount(); g++) {
          double free = l.free(g);
          if (l.isIdle(g) || free + ClusterSnapshot.SHARE_EPSILON < share || !permitted(n, g)) {
            continue;
          }
          double after = free - share;
          if (after < bestFree - ClusterSnapshot.SHARE_EPSILON
              || (Math.abs(after - bestFree) <= ClusterSnapshot.SHARE_EPSILON
              && l.idleGpus() < bestIdle)) {
            bestNode = n;
            bestGpu = g;
            bestFree = after;
            bestIdle = l.idleGpus();
          }
        }
      }
      String rule = "T2 fractional packing";
      if (bestNode >= 0) {
        trace.add(new TraceEntry(gpu(bestNode, bestGpu), rule, "shared GPU",
            String.format(Locale.ROOT, "%.2f fits a partly used GPU, %.2f left after", share,
                bestFree)));
      } else {
        // 2. no shared GPU fits: break an idle GPU on the fullest node
        for (int n = 0; n < topo.size(); n++) {
          if (!nodeEligible(n)) {
            continue;
          }
          NodeLedger l = snap.ledger(n);
          if (l.idleGpus() == 0 || l.idleGpus() >= bestIdle || room(n, 1) < 1) {
            continue;
          }
          for (int g = 0; g < l.gpuCount(); g++) {
            if (l.isIdle(g) && permitted(n, g)) {
              bestNode = n;
              bestGpu = g;
              bestIdle = l.idleGpus();
              break;
            }
          }
        }
        if (bestNode < 0) {
          traceReservations();
          traceResources();
          return fail(heldBy.isEmpty() ? UnplaceableReason.INSUFFICIENT_CAPACITY
              : UnplaceableReason.HELD_BY_RESERVATION, rule,
              "no eligible GPU has " + share + " free");
        }
        trace.add(new TraceEntry(gpu(bestNode, bestGpu), rule, "idle GPU",
            "no partly used GPU fits " + share + "; fullest node with an idle GPU ("
                + bestIdle + " idle)"));
      }
      return fractionalOn(bestNode, bestGpu, share);
    }

    private PlacementDecision fractionalOn(int node, int gpu, double share) {
      traceReservations();
      traceResources();
      GpuAssignment a = new GpuAssignment(topo.node(node).id(), gpu, share);
      double fit = snap.ledger(node).used(gpu) + share;
      return new PlacementDecision(job.jobId(), snap.version(), true, List.of(a), null,
          TopologyLevel.NODE, false, Math.min(1.0, fit), trace);
    }

    /**
     * Fragmentation scoring of a fractional instance: the GPU whose node's expected
     * fragmentation grows least; ties: an already-shared GPU before an idle one, the tightest
     * remaining share, the fullest node, node index, GPU index.
     */
    private PlacementDecision fractionalByFragmentation(double share) {
      int bestNode = -1;
      int bestGpu = -1;
      double bestDelta = 0;
      double bestFree = 0;
      double tol = config.scoring().tolerance();
      for (int n = 0; n < topo.size(); n++) {
        if (!nodeEligible(n)) {
          continue;
        }
        NodeLedger l = snap.ledger(n);
        if (room(n, 1) < 1) {
          continue;
        }
        FragmentationScore.View view = null;
        for (int g = 0; g < l.gpuCount(); g++) {
          double free = l.free(g);
          if (free + ClusterSnapshot.SHARE_EPSILON < share || !permitted(n, g)
              || sameFreeEarlier(l, g, n)) {
            continue;
          }
          if (view == null) {
            view = frag.view(snap, n);
          }
          double delta = frag.fractionalDelta(view, free, share, ask);
          double after = free - share;
          boolean better;
          if (bestNode < 0 || delta < bestDelta - tol) {
            better = true;
          } else if (delta > bestDelta + tol) {
            better = false;
          } else if (l.isIdle(g) != snap.ledger(bestNode).isIdle(bestGpu)) {
            better = !l.isIdle(g);
          } else if (Math.abs(after - bestFree) > ClusterSnapshot.SHARE_EPSILON) {
            better = after < bestFree;
          } else {
            better = l.idleGpus() < snap.ledger(bestNode).idleGpus();
          }
          if (better) {
            bestNode = n;
            bestGpu = g;
            bestDelta = delta;
            bestFree = after;
          }
        }
      }
      if (bestNode < 0) {
        traceReservations();
        traceResources();
        return fail(heldBy.isEmpty() ? UnplaceableReason.INSUFFICIENT_CAPACITY
            : UnplaceableReason.HELD_BY_RESERVATION, "T2 fractional packing",
            "no eligible GPU has " + share + " free");
      }
      trace.add(new TraceEntry(gpu(bestNode, bestGpu), "T2 fractional packing",
          snap.ledger(bestNode).isIdle(bestGpu) ? "idle GPU" : "shared GPU",
          String.format(Locale.ROOT, "%.2f fits, %.2f left after", share, bestFree)));
      traceFragmentation(bestNode, bestDelta);
      return fractionalOn(bestNode, bestGpu, share);
    }

    /**
     * Whether a permitted lower-index GPU of node {@code n} has the same free share as GPU
     * {@code g}: it scores the same and wins the index tie, so {@code g} need not be scored.
     */
    private boolean sameFreeEarlier(NodeLedger l, int g, int n) {
      for (int e = 0; e < g; e++) {
        if (Math.abs(l.free(e) - l.free(g)) <= ClusterSnapshot.SHARE_EPSILON
            && (!snap.hasReservations(n) || permittedQuietly(n, e))) {
          return true;
        }
      }
      return false;
    }

    private boolean permittedQuietly(int n, int g) {
      for (Reservation r : snap.reservationsOn(n, g)) {
        if (!r.permits(job, now)) {
          return false;
        }
      }
      return true;
    }

    /** The trace entry naming the term that decided a fragmentation-scored choice. */
    private void traceFragmentation(int node, double delta) {
      trace.add(new TraceEntry(topo.node(node).id(), "T2 fragmentation score", "chosen",
          String.format(Locale.ROOT, "least growth of expected fragmentation: %+.3f GPU under a"
              + " demand mix of %d shape(s)", delta, config.scoring().mix().shapes().size())));
    }

    // ---------------------------------------------------------------- whole-GPU gangs

    private PlacementDecision placeGang() {
      int gpus = job.gpuCount();
      // 1. eligible idle GPUs per node
      int[] idle = new int[topo.size()];
      long total = 0;
      int perWorker = job.gpusPerWorker();
      for (int n = 0; n < topo.size(); n++) {
        idle[n] = eligibleIdle(n);
        if (asks && idle[n] > 0) {
          // only as many GPUs as the workers its free CPU, memory, extended resources hold
          long r = room(n, job.workersFor(idle[n]));
          if (r < job.workersFor(idle[n])) {
            idle[n] = (int) (r * perWorker);
          }
        }
        total += idle[n];
      }
      traceReservations();
      traceResources();
      if (total < gpus) {
        UnplaceableReason r = heldBy.isEmpty() || total + held() < gpus
            ? UnplaceableReason.INSUFFICIENT_CAPACITY : UnplaceableReason.HELD_BY_RESERVATION;
        return fail(r, "W3 gang all-or-nothing", "needs " + gpus + " idle GPUs, " + total
            + " eligible" + (heldBy.isEmpty() ? "" : ", " + held() + " more held by reservations"));
      }
      // 2. lay out by the gang's shape
      Selection sel = job.nodes() > 0 ? spreadExactly(idle, gpus, job.nodes())
          : packWorkers(idle, gpus, total);
      if (sel == null) {
        return PlacementDecision.unplaceable(job.jobId(), snap.version(), failReason, trace);
      }
      // 3. bandwidth penalty and packing fit
      List<GpuAssignment> out = new ArrayList<>(gpus);
      double fitSum = 0;
      int usedNodes = 0;
      for (Map.Entry<Integer, Integer> e : sel.take.entrySet()) {
        int n = e.getKey();
        int k = e.getValue();
        NodeLedger l = snap.ledger(n);
        int taken = 0;
        for (int g = 0; g < l.gpuCount() && taken < k; g++) {
          if (l.isIdle(g) && permitted(n, g)) {
            out.add(new GpuAssignment(topo.node(n).id(), g, 1.0));
            taken++;
          }
        }
        fitSum += (l.usedShare() + k) / l.gpuCount();
        usedNodes++;
        trace.add(new TraceEntry(topo.node(n).id(), "T1 best fit", "selected",
            "takes " + k + " of " + idle[n] + " eligible idle GPUs"));
      }
      out.sort(Comparator.comparing(GpuAssignment::nodeId)
          .thenComparingInt(GpuAssignment::gpuIndex));
      int tiers = sel.level.switchTiersCrossed();
      double bandwidth = Math.pow(1.0 - config.crossSwitchSlowdown(), tiers);
      if (tiers > 0) {
        trace.add(new TraceEntry(job.jobId(), "T1 cross-switch penalty", "charged",
            String.format(Locale.ROOT, "spans %s: %d switch tier(s) × %.2f slowdown → score × %.2f",
                sel.level, tiers, config.crossSwitchSlowdown(), bandwidth)));
      }
      double score = Math.min(1.0, fitSum / usedNodes) * bandwidth;
      return new PlacementDecision(job.jobId(), snap.version(), true, out, null, sel.level,
          sel.level.crossesSwitchDomain(), score, trace);
    }

    /** nodes == 0: workers of {@code gpus / gangSize} GPUs, smallest domain, best fit inside. */
    private Selection packWorkers(int[] idle, int gpus, long total) {
      int worker = job.gangSize() > 0 && gpus % job.gangSize() == 0 ? gpus / job.gangSize() : 1;
      if (worker > topo.maxGpusPerNode()) {
        failReason = UnplaceableReason.INVALID_SHAPE;
        trace.add(new TraceEntry(job.jobId(), "W3 gang shape", "unplaceable", "one worker needs "
            + worker + " GPUs on one node, the largest node has " + topo.maxGpusPerNode()
            + "; declare more workers (gangSize) or nodes"));
        return null;
      }
      trace.add(new TraceEntry(job.jobId(), "W3 gang all-or-nothing", "shape", gpus + " GPUs as "
          + (gpus / worker) + " worker(s) of " + worker + " GPU(s), a worker never spans nodes"));
      // 1. usable GPUs per node: whole workers only
      int[] usable = new int[idle.length];
      long usableTotal = 0;
      for (int n = 0; n < idle.length; n++) {
        usable[n] = idle[n] / worker * worker;
        usableTotal += usable[n];
      }
      if (usableTotal < gpus) {
        failReason = UnplaceableReason.FRAGMENTED;
        trace.add(new TraceEntry(job.jobId(), "T2 fragmentation", "unplaceable", total
            + " eligible idle GPUs but only " + usableTotal + " in whole " + worker
            + "-GPU worker slots"));
        return null;
      }
      // 2. smallest level with a fitting domain, best fit among that level's domains
      for (TopologyLevel level : LEVELS) {
        int domains = topo.domainCount(level);
        long[] sum = new long[domains];
        long[] raw = new long[domains];
        for (int n = 0; n < usable.length; n++) {
          sum[topo.domainOf(level, n)] += usable[n];
          raw[topo.domainOf(level, n)] += idle[n];
        }
        int best = -1;
        boolean scored = frag != null && level == TopologyLevel.NODE;
        double bestDelta = 0;
        double tol = config.scoring().tolerance();
        Resources charge = scored ? ask.times(job.workersFor(gpus)) : Resources.NONE;
        for (int d = 0; d < domains; d++) {
          if (sum[d] < gpus) {
            continue;
          }
          double delta = scored
              ? frag.wholeDelta(frag.view(snap, topo.member(level, d, 0)), gpus, charge) : 0;
          if (best < 0 || delta < bestDelta - tol || (delta <= bestDelta + tol
              && (sum[d] < sum[best] || (sum[d] == sum[best] && raw[d] < raw[best])))) {
            best = d;
            bestDelta = delta;
          }
        }
        if (scored && best >= 0) {
          traceFragmentation(topo.member(level, best, 0), bestDelta);
        }
        if (best < 0) {
          trace.add(new TraceEntry(job.jobId(), "T1 smallest domain", "no fit",
              "no " + level + " domain has " + gpus + " usable GPUs"));
          continue;
        }
        trace.add(new TraceEntry(topo.domainKey(level, best), "T1 smallest domain", "chosen",
            level + " domain with " + sum[best] + " usable GPUs (best fit for " + gpus + ")"));
        Selection sel = new Selection(level);
        List<Integer> members = new ArrayList<>(topo.memberCount(level, best));
        for (int k = 0; k < topo.memberCount(level, best); k++) {
          members.add(topo.member(level, best, k));
        }
        fill(level, members, gpus, usable, idle, sel);
        return sel;
      }
      throw new IllegalStateException("CLUSTER level must fit when usable total suffices");
    }

    /**
     * Takes {@code need} GPUs from the nodes of one domain at {@code level}: the tightest child
     * domain that holds the rest, else the largest child completely, then repeat.
     */
    private void fill(TopologyLevel level, List<Integer> nodes, int need, int[] usable,
        int[] idle, Selection sel) {
      if (level == TopologyLevel.NODE) {
        sel.take.merge(nodes.get(0), need, Integer::sum);
        return;
      }
      // 1. group this domain's nodes by child domain (keys ascending = deterministic ties)
      TopologyLevel child = LEVELS[level.ordinal() - 1];
      TreeMap<Integer, List<Integer>> children = new TreeMap<>();
      TreeMap<Integer, Long> sums = new TreeMap<>();
      TreeMap<Integer, Long> raws = new TreeMap<>();
      for (int n : nodes) {
        if (usable[n] == 0) {
          continue;
        }
        int d = topo.domainOf(child, n);
        children.computeIfAbsent(d, x -> new ArrayList<>()).add(n);
        sums.merge(d, (long) usable[n], Long::sum);
        raws.merge(d, (long) idle[n], Long::sum);
      }
      int rest = need;
      while (rest > 0) {
        // 2. tightest child holding the rest (fewest usable, then fewest idle GPUs), else the
        //    largest child
        int fit = -1;
        int largest = -1;
        for (Map.Entry<Integer, Long> e : sums.entrySet()) {
          long s = e.getValue();
          int d = e.getKey();
          if (s >= rest && (fit < 0 || s < sums.get(fit)
              || (s == sums.get(fit) && raws.get(d) < raws.get(fit)))) {
            fit = d;
          }
          if (largest < 0 || s > sums.get(largest)) {
            largest = e.getKey();
          }
        }
        int pick = fit >= 0 ? fit : largest;
        int amount = (int) Math.min(rest, sums.get(pick));
        fill(child, children.get(pick), amount, usable, idle, sel);
        rest -= amount;
        sums.remove(pick);
      }
    }

    /** nodes > 0: exactly {@code k} nodes, per-node counts differing by at most one. */
    private Selection spreadExactly(int[] idle, int gpus, int k) {
      int q = gpus / k;
      int r = gpus % k;
      trace.add(new TraceEntry(job.jobId(), "W3 gang all-or-nothing", "shape", gpus
          + " GPUs spread evenly over exactly " + k + " node(s): " + (r > 0 ? r + " × "
          + (q + 1) + " + " : "") + (k - r) + " × " + q));
      for (TopologyLevel level : LEVELS) {
        if (level == TopologyLevel.NODE && k > 1) {
          continue;
        }
        int domains = topo.domainCount(level);
        int[] big = new int[domains];
        int[] small = new int[domains];
        long[] sum = new long[domains];
        for (int n = 0; n < idle.length; n++) {
          int d = topo.domainOf(level, n);
          if (idle[n] >= q + 1) {
            big[d]++;
          }
          if (idle[n] >= q) {
            small[d]++;
            sum[d] += idle[n];
          }
        }
        int best = -1;
        for (int d = 0; d < domains; d++) {
          if (big[d] >= r && small[d] >= k && (best < 0 || sum[d] < sum[best])) {
            best = d;
          }
        }
        if (best < 0) {
          trace.add(new TraceEntry(job.jobId(), "T1 smallest domain", "no fit",
              "no " + level + " domain has " + k + " nodes with " + q + "+ idle GPUs"));
          continue;
        }
        trace.add(new TraceEntry(topo.domainKey(level, best), "T1 smallest domain", "chosen",
            level + " domain (best fit, " + sum[best] + " idle GPUs on qualifying nodes)"));
        // fullest qualifying nodes first: r nodes taking q + 1, then k - r taking q
        List<Integer> cands = new ArrayList<>();
        for (int j = 0; j < topo.memberCount(level, best); j++) {
          int n = topo.member(level, best, j);
          if (idle[n] >= q) {
            cands.add(n);
          }
        }
        cands.sort(Comparator.<Integer>comparingInt(n -> idle[n]).thenComparingInt(n -> n));
        Selection sel = new Selection(level);
        for (int n : cands) {
          if (sel.take.size() < r && idle[n] >= q + 1) {
            sel.take.put(n, q + 1);
          }
        }
        for (int n : cands) {
          if (sel.take.size() < k && !sel.take.containsKey(n)) {
            sel.take.put(n, q);
          }
        }
        return sel;
      }
      failReason = UnplaceableReason.FRAGMENTED;
      trace.add(new TraceEntry(job.jobId(), "T2 fragmentation", "unplaceable",
          "enough idle GPUs in total, but not " + k + " nodes with " + q + "+ idle each"));
      return null;
    }

    // ---------------------------------------------------------------- eligibility

    private boolean nodeEligible(int n) {
      return !snap.isCordoned(n) && modelOk[topo.modelIndex(n)];
    }

    private int eligibleIdle(int n) {
      if (!nodeEligible(n)) {
        return 0;
      }
      NodeLedger l = snap.ledger(n);
      if (!snap.hasReservations(n)) {
        return l.idleGpus();
      }
      int c = 0;
      for (int g = 0; g < l.gpuCount(); g++) {
        if (l.isIdle(g) && permitted(n, g)) {
          c++;
        }
      }
      return c;
    }

    /** Whether every reservation on the GPU lets this job use it; records which ones refused. */
    private boolean permitted(int n, int g) {
      if (!snap.hasReservations(n)) {
        return true;
      }
      boolean ok = true;
      for (Reservation r : snap.reservationsOn(n, g)) {
        if (!r.permits(job, now)) {
          ok = false;
          heldBy.merge(r.id(), 1, Integer::sum);
        }
      }
      return ok;
    }

    private int held() {
      int s = 0;
      for (int v : heldBy.values()) {
        s += v;
      }
      return s;
    }

    private void traceReservations() {
      if (reservationsTraced) {
        return;
      }
      reservationsTraced = true;
      for (Map.Entry<String, Integer> e : heldBy.entrySet()) {
        Reservation r = snap.reservations().get(e.getKey());
        String why = now.isBefore(r.startsAt())
            ? "starts " + r.startsAt() + ", before then only preemptible work may use it"
            : "started " + r.startsAt() + ", held for the service alone";
        trace.add(new TraceEntry(r.id(), "F2 reservation", "excluded", e.getValue()
            + " otherwise fitting GPU(s) withheld: reserved for service " + r.serviceId() + ", " + why));
      }
    }

    private PlacementDecision fail(UnplaceableReason reason, String rule, String detail) {
      trace.add(new TraceEntry(job.jobId(), rule, "unplaceable", detail));
      return PlacementDecision.unplaceable(job.jobId(), snap.version(), reason, trace);
    }

    private String gpu(int n, int g) {
      return new GpuRef(topo.node(n).id(), g).toString();
    }
  }

  /** Chosen level and GPUs to take per node (node index ascending). */
  private static final class Selection {
    final TopologyLevel level;
    final TreeMap<Integer, Integer> take = new TreeMap<>();

    Selection(TopologyLevel level) {
      this.level = level;
    }
  }
}
