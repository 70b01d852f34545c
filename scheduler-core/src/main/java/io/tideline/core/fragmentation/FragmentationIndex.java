package io.tideline.core.fragmentation;

import io.tideline.core.cluster.ClusterSnapshot;
import io.tideline.core.cluster.NodeLedger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Measures fragmentation (T2): idle GPUs that the demand actually seen cannot use.
 *
 * <p><b>Definition.</b> Let a node have {@code C} GPUs of which {@code f} are idle (hold no share
 * at all; GPUs partly used by fractional instances are not idle and serve fractional demand, so
 * they are outside the index). For a demanded shape {@code s} (GPUs needed together on one node,
 * see {@link DemandHistogram}) the node can serve {@code floor(f / s) · s} of its idle GPUs if
 * {@code s ≤ C}, none otherwise; the rest are <i>stranded for s</i>. With weights {@code w_s}
 * summing to {@code W}:
 * <pre>
 *   stranded(node) = Σ_s w_s · stranded_s(f) / W          (expected stranded idle GPUs)
 *   index(node)    = stranded(node) / f,  0 when f = 0    (in [0, 1])
 *   index(cluster) = Σ stranded(node) / Σ f               (in [0, 1])
 * </pre>
 * With all demand at 8 GPUs (T2's example) a node with 5 idle GPUs has index 1.0 — none of them
 * can take an 8-GPU job — and the cluster figure is the share of idle GPUs outside whole idle
 * nodes. Model, reservations and cordons are ignored: this measures shape, not eligibility.
 */
public final class FragmentationIndex {

  private final DemandHistogram demand;
  private final int[] shapes;
  private final double[] weights;

  public FragmentationIndex(DemandHistogram demand) {
    this.demand = demand;
    this.shapes = new int[demand.counts().size()];
    this.weights = new double[shapes.length];
    double total = demand.total();
    int i = 0;
    for (Map.Entry<Integer, Long> e : demand.counts().entrySet()) {
      shapes[i] = e.getKey();
      weights[i] = e.getValue() / total;
      i++;
    }
  }

  /** The demand this index is measured against. */
  public DemandHistogram demand() {
    return demand;
  }

  /** Expected stranded idle GPUs of a node with {@code gpuCount} GPUs, {@code idle} idle. */
  public double stranded(int gpuCount, int idle) {
    double s = 0;
    for (int i = 0; i < shapes.length; i++) {
      int usable = shapes[i] <= gpuCount ? idle / shapes[i] * shapes[i] : 0;
      s += weights[i] * (idle - usable);
    }
    return s;
  }

  /** Fragmentation of node {@code node} (topology index) in {@code snapshot}. */
  public NodeFragmentation node(ClusterSnapshot snapshot, int node) {
    NodeLedger l = snapshot.ledger(node);
    int idle = l.idleGpus();
    double stranded = stranded(l.gpuCount(), idle);
    return new NodeFragmentation(snapshot.topology().node(node).id(), idle, stranded,
        idle == 0 ? 0.0 : stranded / idle, l.usedShare());
  }

  /** Expected stranded idle GPUs over the cluster (the numerator of the cluster index). */
  public double strandedGpus(ClusterSnapshot snapshot) {
    double s = 0;
    for (int n = 0; n < snapshot.topology().size(); n++) {
      NodeLedger l = snapshot.ledger(n);
      s += stranded(l.gpuCount(), l.idleGpus());
    }
    return s;
  }

  /** The cluster figure with every node, most fragmented first. */
  public ClusterFragmentation cluster(ClusterSnapshot snapshot) {
    List<NodeFragmentation> nodes = new ArrayList<>(snapshot.topology().size());
    double stranded = 0;
    int idle = 0;
    for (int n = 0; n < snapshot.topology().size(); n++) {
      NodeFragmentation f = node(snapshot, n);
      nodes.add(f);
      stranded += f.strandedGpus();
      idle += f.idleGpus();
    }
    nodes.sort(MOST_FRAGMENTED_FIRST);
    return new ClusterFragmentation(idle == 0 ? 0.0 : stranded / idle, stranded, idle, nodes);
  }

  /** Index desc, stranded desc, node id: the order active defragmentation works in. */
  public static final Comparator<NodeFragmentation> MOST_FRAGMENTED_FIRST =
      Comparator.comparingDouble(NodeFragmentation::index).reversed()
          .thenComparing(Comparator.comparingDouble(NodeFragmentation::strandedGpus).reversed())
          .thenComparing(NodeFragmentation::nodeId);
}
