package io.tideline.core.scheduling;

import io.tideline.core.fragmentation.ClusterFragmentation;
import io.tideline.core.fragmentation.DemandHistogram;
import io.tideline.core.fragmentation.FragmentationIndex;
import io.tideline.core.fragmentation.FragmentationReporting;
import io.tideline.core.fragmentation.NodeFragmentation;
import java.util.ArrayList;
import java.util.List;

/**
 * T2 as events: the cluster and per-node fragmentation figures, against the demand of the queue
 * and the running jobs, published on {@code placement.fragmentation} when
 * {@link FragmentationReporting} says one is due (first, a material move, or the interval) — by
 * event time, at most once per cycle.
 */
final class FragmentationEvents {

  private final FragmentationReporting reporting;

  FragmentationEvents(PlacementPolicy policy) {
    this.reporting = new FragmentationReporting(policy.fragmentationReporting());
  }

  void report(Cycle c, DemandHistogram demand) {
    ClusterFragmentation f = new FragmentationIndex(demand).cluster(c.snap());
    FragmentationReporting.Trigger trigger = reporting.due(c.now, f.index(),
        c.meta.lastReportAt(), c.meta.lastReportIndex());
    if (trigger == null) {
      return;
    }
    List<PlacementEffect.NodeFigure> nodes = new ArrayList<>();
    for (NodeFragmentation n : f.nodes()) {
      if (n.idleGpus() > 0) {
        nodes.add(new PlacementEffect.NodeFigure(n.nodeId(), n.idleGpus(), n.strandedGpus(),
            n.index(), n.usedShare()));
      }
    }
    c.effects.add(new PlacementEffect.Fragmentation(c.now, c.version(), f.index(),
        f.strandedGpus(), f.idleGpus(), demand.counts(), nodes, trigger.name()));
    c.meta = c.meta.withReport(c.now, f.index());
  }
}
