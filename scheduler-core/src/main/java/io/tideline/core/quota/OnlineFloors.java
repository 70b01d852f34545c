package io.tideline.core.quota;

import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Applies the online guarantees (requirements Q1, Q5) to the floors in force. The declarative
 * definition says which INFERENCE queue serves which online services ({@link QuotaNode#services()});
 * the forecaster says each service's historical peak. The floor of such a queue is then locked to
 * the sum of its services' guarantees (ceil(70% × peak) each, {@link SegmentCalculator}) instead of
 * the number written in the definition, so guarantees follow the tides without a new definition
 * version. A pure function of (declared definition, fleet, peaks): the service recomputes it on
 * every new definition or peak, and after a restart, and always gets the same floors.
 *
 * <p>Rules, in order:
 *
 * <ol>
 *   <li>A queue whose services have no peak yet keeps its declared floor (bootstrap value).
 *   <li>Otherwise its floor = Σ guarantee(peak) over its services that have a peak (a service
 *       without one contributes nothing yet).
 *   <li>Every ancestor's floor = max(its declared floor, Σ of its children's floors in force), so a
 *       grown guarantee never breaks the Q2 subdivision (children within their parent); a shrunk one
 *       leaves the declared ancestors as written.
 *   <li>Lending limits, caps, weights and grants stay as declared ("locked": a raised online floor
 *       is not made lendable by the raise).
 * </ol>
 */
public final class OnlineFloors {

  private final SegmentCalculator segments;

  public OnlineFloors(QuotaConfig config) {
    this.segments = new SegmentCalculator(config);
  }

  /**
   * The definition in force.
   *
   * @param definition effective definition: declared version and nodes, floors with the guarantees
   *     applied
   * @param segments Q1 segments recomputed for the fleet from the peaks of the services some queue
   *     serves (offline segment 0 here: key training minimums are not known to this function)
   * @param trace one entry per queue whose floor follows its services, with the arithmetic
   */
  public record Applied(QuotaDefinition definition, QuotaSegments segments, List<TraceEntry> trace) {
    public Applied {
      trace = List.copyOf(trace);
    }
  }

  /** One node's floor moved between two definitions in force. */
  public record FloorChange(String path, double oldFloorGpus, double newFloorGpus) {}

  /**
   * The declared definition with the online guarantees applied.
   *
   * @param declared the definition as written (validated)
   * @param fleetGpus GPUs in the fleet (for the Q1 segments)
   * @param peaks historical peak GPUs by online service id (services no queue serves are ignored)
   */
  public Applied apply(QuotaDefinition declared, double fleetGpus, Map<String, Double> peaks) {
    TreeMap<String, QuotaNode> nodes = new TreeMap<>();
    for (QuotaNode n : declared.nodes()) {
      if (n.path() != null) {
        nodes.putIfAbsent(n.path(), n);
      }
    }
    List<TraceEntry> trace = new ArrayList<>();
    TreeMap<String, Double> servedPeaks = new TreeMap<>();
    // 1–2. Queues that serve online services: the sum of their services' guarantees.
    for (QuotaNode q : declared.queues()) {
      double sum = 0;
      List<String> parts = new ArrayList<>();
      for (String s : q.services()) {
        Double peak = peaks.get(s);
        if (peak != null && peak > 0) {
          double g = segments.onlineGuarantee(peak);
          servedPeaks.put(s, peak);
          sum += g;
          parts.add(s + " " + Gpus.fmt(g) + " (peak " + Gpus.fmt(peak) + ")");
        }
      }
      if (parts.isEmpty()) {
        continue;
      }
      nodes.put(q.path(), q.withFloor(Gpus.snap(sum)));
      trace.add(new TraceEntry(q.path(), "Q5 online floor", "locked " + Gpus.fmt(sum),
          String.join(" + ", parts) + " (declared " + Gpus.fmt(q.guaranteedGpus()) + ")"));
    }
    // 3. Ancestors, deepest first, grow to hold their children's floors.
    List<QuotaNode> inner = nodes.values().stream().filter(n -> n.kind() != NodeKind.QUEUE)
        .sorted(Comparator.comparingInt((QuotaNode n) -> depth(n.path())).reversed()
            .thenComparing(QuotaNode::path))
        .toList();
    for (QuotaNode n : inner) {
      double kids = 0;
      for (QuotaNode k : declared.children(n.path())) {
        kids += nodes.get(k.path()).guaranteedGpus();
      }
      if (!Gpus.le(kids, n.guaranteedGpus())) {
        double floor = Gpus.snap(kids);
        nodes.put(n.path(), n.withFloor(floor));
        trace.add(new TraceEntry(n.path(), "Q2 floor holds children", "floor " + Gpus.fmt(floor),
            "children " + Gpus.fmt(kids) + " > declared " + Gpus.fmt(n.guaranteedGpus())));
      }
    }
    // 4. Keep the declaration order (and any duplicates) so validation reads the same.
    List<QuotaNode> ordered = new ArrayList<>();
    for (QuotaNode n : declared.nodes()) {
      QuotaNode applied = n.path() == null ? null : nodes.get(n.path());
      ordered.add(applied != null && declared.node(n.path()).orElse(null) == n ? applied : n);
    }
    QuotaSegments seg = segments.compute(fleetGpus, servedPeaks, Map.of());
    return new Applied(QuotaDefinition.of(declared.version(), ordered), seg, trace);
  }

  /** Every node whose floor differs between two definitions in force, by path. */
  public static List<FloorChange> changes(QuotaDefinition before, QuotaDefinition after) {
    TreeMap<String, FloorChange> out = new TreeMap<>();
    for (QuotaNode n : after.nodes()) {
      double old = before.node(n.path()).map(QuotaNode::guaranteedGpus).orElse(0.0);
      if (Math.abs(old - n.guaranteedGpus()) > Gpus.EPS) {
        out.put(n.path(), new FloorChange(n.path(), old, n.guaranteedGpus()));
      }
    }
    return List.copyOf(out.values());
  }

  private static int depth(String path) {
    return (int) path.chars().filter(c -> c == '/').count();
  }
}
