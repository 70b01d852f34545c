package io.tideline.simulator;

import io.tideline.core.forecast.ReservationConfig;
import io.tideline.core.placement.NodeScoring;
import java.util.List;
import java.util.Objects;

/**
 * One scheduling policy the twin compares. Tideline is the full policy; each baseline changes one
 * thing, so a difference in the report is that thing's effect.
 *
 * @param name column name in the report
 * @param hardSplit fixed inference and training partitions, nothing lent across (baseline a)
 * @param preemption how pending work may evict running work
 * @param forecastReservations F2/F3 reservations from the slot forecast (off: baseline c)
 * @param topologyAware placement sees the switch domains (off: baseline d). Topology-blind
 *     placement runs the same {@code Placer} on a flattened copy of the topology in which every
 *     node sits under one switch: the placer's smallest-domain rule then has nothing to choose and
 *     only its best-fit-by-node rule (fullest node that fits, then node id) remains; node ids are
 *     hashed host ids, so the order ignores domains. The twin still slows such jobs by the real
 *     topology penalty and counts cross-domain placements on the real topology.
 * @param defrag passive and active defragmentation (T3)
 * @param nodeScoring how single-node placements rank nodes: best fit (the shipped default) or
 *     the fragmentation rule against the live mix (ADR 0038; {@code SimulatorMain
 *     --node-scoring FRAGMENTATION}, the same switch as placement-svc's
 *     {@code tideline.placement.node-scoring})
 * @param startEviction what a reservation's start evicts for (ADR 0039; {@code SimulatorMain
 *     --start-eviction}, the same switch as the forecaster's
 *     {@code tideline.forecast.start-eviction}); the shipped default in every policy
 */
public record Policy(String name, boolean hardSplit, Preemption preemption,
    boolean forecastReservations, boolean topologyAware, boolean defrag,
    NodeScoring.Rule nodeScoring, ReservationConfig.StartEviction startEviction) {

  /** Tideline: forecast reservations, the preemption planner, topology-aware placement, defrag. */
  public static final Policy TIDELINE = new Policy("tideline", false, Preemption.PLANNER, true,
      true, true, NodeScoring.Rule.BEST_FIT,
      ReservationConfig.DEFAULTS.startEviction());
  /** (a) Fixed partitions, no sharing, no preemption. */
  public static final Policy HARD_SPLIT = new Policy("hard-split", true, Preemption.NONE, false,
      true, false, NodeScoring.Rule.BEST_FIT,
      ReservationConfig.DEFAULTS.startEviction());
  /** (b) Priority-only preemption: no protection, cooldown, threshold or cost model. */
  public static final Policy NAIVE_PREEMPTION = new Policy("naive-preemption", false,
      Preemption.NAIVE, true, true, true, NodeScoring.Rule.BEST_FIT,
      ReservationConfig.DEFAULTS.startEviction());
  /** (c) Reactive only: no forecast reservations. */
  public static final Policy NO_FORECAST = new Policy("no-forecast", false, Preemption.PLANNER,
      false, true, true, NodeScoring.Rule.BEST_FIT,
      ReservationConfig.DEFAULTS.startEviction());
  /** (d) Topology-blind best-fit placement. */
  public static final Policy TOPOLOGY_BLIND = new Policy("topology-blind", false,
      Preemption.PLANNER, true, false, true, NodeScoring.Rule.BEST_FIT,
      ReservationConfig.DEFAULTS.startEviction());

  /** Tideline first, then the baselines a–d. */
  public static final List<Policy> ALL =
      List.of(TIDELINE, HARD_SPLIT, NAIVE_PREEMPTION, NO_FORECAST, TOPOLOGY_BLIND);

  public Policy {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(preemption, "preemption");
    Objects.requireNonNull(nodeScoring, "nodeScoring");
    Objects.requireNonNull(startEviction, "startEviction");
  }

  /** This policy ranking single-node placements by {@code rule}. */
  public Policy withNodeScoring(NodeScoring.Rule rule) {
    return new Policy(name, hardSplit, preemption, forecastReservations, topologyAware, defrag,
        rule, startEviction);
  }

  /** This policy's reservations starting with {@code e} (ADR 0039). */
  public Policy withStartEviction(ReservationConfig.StartEviction e) {
    return new Policy(name, hardSplit, preemption, forecastReservations, topologyAware, defrag,
        nodeScoring, e);
  }

  /**
   * The placement kernel's policy for this baseline: the shipped defaults with one thing
   * changed — the hard split's inference partition (the first nodes holding the online peak plus
   * headroom), who may ask for preemption, defragmentation off, or the switch domains hidden.
   */
  public io.tideline.core.scheduling.PlacementPolicy placement(String cluster,
      Scenario scenario) {
    var p = io.tideline.core.scheduling.PlacementPolicy.defaults(cluster);
    java.util.TreeSet<String> partition = new java.util.TreeSet<>();
    if (hardSplit) {
      SimConfig c = scenario.config();
      int n = (int) Math.ceil(scenario.demand().peakTotal() * (1 + c.hardSplitHeadroom())
          / c.gpusPerNode());
      scenario.nodes().stream().limit(n).forEach(x -> partition.add(x.id()));
    }
    var rights = switch (preemption) {
      case PLANNER -> io.tideline.core.scheduling.PlacementPolicy.Rights.QUOTA;
      case NAIVE -> io.tideline.core.scheduling.PlacementPolicy.Rights.EVERY_JOB;
      case NONE -> io.tideline.core.scheduling.PlacementPolicy.Rights.NONE;
    };
    var d = p.defrag();
    var defragConfig = defrag ? d : new io.tideline.core.fragmentation.DefragConfig(0,
        d.period(), java.util.Set.of(), 0);
    var placement = p.placement().withScoring(nodeScoring == NodeScoring.Rule.FRAGMENTATION
        ? NodeScoring.live() : NodeScoring.DEFAULTS);
    return p.with(rights, partition, defragConfig, placement).withTopologyAware(topologyAware);
  }

  /** The preemption kernel's policy for this baseline (the rules, the naive baseline, or none). */
  public io.tideline.core.preemption.kernel.PreemptionPolicy preemptionPolicy(String cluster) {
    var p = io.tideline.core.preemption.kernel.PreemptionPolicy.defaults(cluster);
    return p.withMode(switch (preemption) {
      case PLANNER -> io.tideline.core.preemption.kernel.PreemptionPolicy.Mode.PLANNER;
      case NAIVE -> io.tideline.core.preemption.kernel.PreemptionPolicy.Mode.NAIVE;
      case NONE -> io.tideline.core.preemption.kernel.PreemptionPolicy.Mode.NONE;
    });
  }

  /** How pending work may evict running work. */
  public enum Preemption {
    /** None at all. */
    NONE,
    /**
     * The core's {@code PreemptionPlanner} (W4, P1–P6) with a {@code PlacementProbe}: online
     * inference and critical jobs may preempt.
     */
    PLANNER,
    /**
     * Kubernetes-style priority preemption: any job evicts running jobs of strictly lower static
     * priority (the same P1 class priorities), lowest priority then newest first, ignoring
     * declared preemptibility, protection, cooldown, score ratio and cost; online never a victim.
     */
    NAIVE
  }
}
