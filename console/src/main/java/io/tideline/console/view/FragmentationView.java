package io.tideline.console.view;

import io.tideline.events.FragmentationReport;
import io.tideline.events.NodeChange;
import io.tideline.events.NodeFragmentationFigure;
import io.tideline.events.NodeInventory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Fragmentation (T2): the cluster figure over time (one point per bucket: the bucket's last
 * report) and, from the latest report, the nodes that strand GPUs grouped by their access switch
 * (the switch domain a gang would want to stay in). A fold of {@code placement.fragmentation} and
 * {@code cluster.inventory}.
 */
public final class FragmentationView {

  /** The cluster at one time. */
  public record Point(Instant at, double index, double strandedGpus, int idleGpus) {}

  /** A node that strands GPUs. */
  public record NodeRow(String nodeId, int idleGpus, double strandedGpus, double index) {}

  /** One switch domain and its stranding nodes, worst first. */
  public record Domain(String accessSwitch, String aggregationSwitch, double strandedGpus,
      int idleGpus, List<NodeRow> nodes) {}

  private record Path(String access, String aggregation) {}

  private final Duration bucket;
  private final Duration window;
  private final TreeMap<Long, Point> points = new TreeMap<>();
  private final Map<String, Path> paths = new HashMap<>();
  private FragmentationReport latest;

  public FragmentationView(Duration bucket, Duration window) {
    this.bucket = bucket;
    this.window = window;
  }

  public void inventory(NodeInventory n) {
    if (n.getChange() == NodeChange.LEFT) {
      paths.remove(n.getNodeId());
    } else {
      paths.put(n.getNodeId(), new Path(n.getSwitchPath().getAccessSwitch(),
          n.getSwitchPath().getAggregationSwitch()));
    }
  }

  public void report(FragmentationReport r) {
    if (latest == null || !r.getAt().isBefore(latest.getAt())) {
      latest = r;
    }
    long t = r.getAt().toEpochMilli();
    long key = Math.floorDiv(t, bucket.toMillis()) * bucket.toMillis();
    points.put(key, new Point(r.getAt(), r.getIndex(), r.getStrandedGpus(), r.getIdleGpus()));
    points.headMap(latest.getAt().toEpochMilli() - window.toMillis()).clear();
  }

  public List<Point> series() {
    return List.copyOf(points.values());
  }

  /** The latest cluster figure, or null before any report. */
  public Point now() {
    return latest == null ? null : new Point(latest.getAt(), latest.getIndex(),
        latest.getStrandedGpus(), latest.getIdleGpus());
  }

  /** One page of the switch domains with stranding nodes, most stranded GPUs first. */
  public Page<Domain> domains(int page, int size) {
    Map<Path, List<NodeRow>> byDomain = new HashMap<>();
    if (latest != null) {
      for (NodeFragmentationFigure n : latest.getNodes()) {
        if (n.getStrandedGpus() > 0) {
          Path p = paths.getOrDefault(n.getNodeId(), new Path("?", "?"));
          byDomain.computeIfAbsent(p, k -> new ArrayList<>()).add(new NodeRow(n.getNodeId(),
              n.getIdleGpus(), n.getStrandedGpus(), n.getIndex()));
        }
      }
    }
    List<Domain> all = new ArrayList<>();
    byDomain.forEach((p, nodes) -> {
      nodes.sort(Comparator.comparingDouble(NodeRow::strandedGpus).reversed()
          .thenComparing(NodeRow::nodeId));
      all.add(new Domain(p.access(), p.aggregation(),
          nodes.stream().mapToDouble(NodeRow::strandedGpus).sum(),
          nodes.stream().mapToInt(NodeRow::idleGpus).sum(), List.copyOf(nodes)));
    });
    all.sort(Comparator.comparingDouble(Domain::strandedGpus).reversed()
        .thenComparing(Domain::accessSwitch));
    return Page.of(all, page, size);
  }
}
