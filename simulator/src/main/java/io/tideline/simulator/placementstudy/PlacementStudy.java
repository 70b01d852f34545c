package io.tideline.simulator.placementstudy;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.Resources;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The fragmentation study protocol of the ATC'23 GPU-sharing paper ("Beware of Fragmentation"),
 * on any nodes/pods CSV pair of the public trace format. For each seed: shuffle the pods with the
 * seed, append pods sampled (with replacement, same random stream) until the GPU request reaches
 * {@link StudyConfig#inflationPct} of capacity, cut the list there, then place them one by one and
 * never remove any. The allocation ratio (allocated GPUs / capacity) is sampled when arrival
 * (GPUs requested so far / capacity) first reaches each step.
 *
 * <p>Nodes with no GPU are left out (the core's nodes carry GPUs); pods that ask nothing at all
 * (no GPU, CPU or memory) are left out as they change nothing. Every resource is enforced for
 * every policy: GPUs, GPU shares, models, CPU, memory.
 */
public final class PlacementStudy {

  /** gpu_milli of a whole GPU. */
  public static final int MILLI = 1000;
  private static final long MIB = 1L << 20;

  private final List<StudyNode> nodes;
  private final List<StudyPod> pods;
  private final StudyConfig config;
  private final double capacity;

  public PlacementStudy(List<StudyNode> nodes, List<StudyPod> pods, StudyConfig config) {
    this.nodes = nodes.stream().filter(n -> n.gpus() > 0).toList();
    this.pods = pods.stream().filter(p -> p.numGpu() > 0 || p.cpuMilli() > 0
        || p.memoryMib() > 0).toList();
    this.config = config;
    this.capacity = this.nodes.stream().mapToInt(StudyNode::gpus).sum();
    if (this.nodes.isEmpty()) {
      throw new IllegalArgumentException("no node with GPUs");
    }
    if (this.pods.stream().mapToDouble(StudyPod::gpuDemand).sum() <= 0) {
      throw new IllegalArgumentException("no pod asks a GPU: arrival cannot be inflated");
    }
  }

  /** GPUs of the nodes the study places on. */
  public double capacity() {
    return capacity;
  }

  /** Nodes the study places on (those with GPUs). */
  public List<StudyNode> nodes() {
    return nodes;
  }

  /** The arrival order of one seed: shuffled, inflated and cut at the inflation target. */
  public List<StudyPod> arrivals(long seed) {
    Random rnd = new Random(seed);
    List<StudyPod> order = new ArrayList<>(pods);
    Collections.shuffle(order, rnd);
    double target = capacity * config.inflationPct() / 100.0;
    List<StudyPod> out = new ArrayList<>();
    double total = 0;
    int copy = 0;
    for (int i = 0; total < target - ClusterSnapshot.SHARE_EPSILON; i++) {
      StudyPod p = i < order.size() ? order.get(i)
          : pods.get(rnd.nextInt(pods.size())).named("inflated-" + (copy++));
      out.add(p);
      total += p.gpuDemand();
    }
    return out;
  }

  /** The empty cluster: one node per row, all under one switch (the trace has no topology). */
  public ClusterSnapshot emptyCluster() {
    SwitchPath one = new SwitchPath("dsw", "psw", "asw");
    List<Node> ns = new ArrayList<>();
    for (StudyNode n : nodes) {
      ns.add(new Node(n.sn(), n.model(), n.gpus(), n.sn(), one,
          Resources.of(n.cpuMilli(), n.memoryMib() * MIB)));
    }
    return ClusterSnapshot.empty(ns);
  }

  /** The core request for one pod: a 1-worker gang, a fractional share, models, CPU, memory. */
  public static JobRequest request(StudyPod p) {
    boolean frac = p.fractional();
    return new JobRequest(p.name(), "study", "study", "study", WorkloadClass.BATCH_INFERENCE,
        false, false, false, null, p.numGpu(), frac ? p.gpuDemand() : 1.0, 1, 0, p.models(),
        Instant.EPOCH, null, 0, null, 0, Resources.of(p.cpuMilli(), p.memoryMib() * MIB));
  }

  /** One policy over one seed. */
  public SeedRun run(StudyPolicy policy, long seed) {
    ClusterSnapshot s = emptyCluster();
    double[] curve = new double[config.steps()];
    double arrived = 0;
    double allocated = 0;
    int step = 0;
    int placed = 0;
    List<StudyPod> arrivals = arrivals(seed);
    for (StudyPod p : arrivals) {
      arrived += p.gpuDemand();
      ClusterSnapshot next = policy.place(s, request(p));
      if (next != null) {
        s = next;
        allocated += p.gpuDemand();
        placed++;
      }
      while (step < curve.length && arrived + ClusterSnapshot.SHARE_EPSILON
          >= capacity * (step + 1) * config.stepPct() / 100.0) {
        curve[step++] = allocated / capacity;
      }
    }
    while (step < curve.length) {
      curve[step++] = allocated / capacity;
    }
    return new SeedRun(policy.name(), seed, curve, arrivals.size(), placed, s);
  }

  /** Every policy over every seed, policies in the given order. */
  public StudyResult run(List<StudyPolicy> policies) {
    List<List<SeedRun>> out = new ArrayList<>();
    for (StudyPolicy p : policies) {
      List<SeedRun> runs = new ArrayList<>();
      for (long seed = config.firstSeed(); seed <= config.lastSeed(); seed++) {
        runs.add(run(p, seed));
      }
      out.add(runs);
    }
    return new StudyResult(config, nodes.size(), capacity, out);
  }

  /**
   * One policy over one seed.
   *
   * @param curve allocation ratio at arrival step 1..n (index 0 = stepPct %)
   * @param arrivals pods that arrived
   * @param placed pods placed
   * @param finalCluster the ledger after the last arrival
   */
  public record SeedRun(String policy, long seed, double[] curve, int arrivals, int placed,
      ClusterSnapshot finalCluster) {

    /** Allocation ratio at {@code pct} % arrival (a multiple of the step). */
    public double allocationAt(int pct, StudyConfig c) {
      return curve[pct / c.stepPct() - 1];
    }
  }
}
