package io.tideline.placement.ledger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tideline.core.scheduling.PlacementEffect;
import io.tideline.core.scheduling.PlacementState;
import io.tideline.platform.kernel.HostResult;
import io.tideline.platform.kernel.PlacementHost;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every meter of placement-svc, in one place (O1). Gauges read values the ledger thread publishes
 * here, so a scrape never touches the ledger itself.
 *
 * <ul>
 *   <li>{@code tideline_placement_node_fragmentation{cluster, node}}: T2 per-node index in [0, 1]
 *       (stranded idle GPUs ÷ idle GPUs, against the demanded shapes).
 *   <li>{@code tideline_placement_cluster_fragmentation{cluster}}: T2 cluster index in [0, 1].
 *   <li>{@code tideline_placement_idle_gpus{cluster}}: whole idle GPUs.
 *   <li>{@code tideline_placement_queue_length{cluster, lane}}: waiting jobs per Q6 lane.
 *   <li>{@code tideline_placement_ledger_version{cluster}}: allocation ledger version.
 *   <li>{@code tideline_placement_decisions_total{cluster, outcome}}: decisions written, by
 *       outcome (PLACED, QUEUED, PREEMPTION_REQUESTED, HELD_FOR_PREEMPTOR, RELEASED, MIGRATED).
 *   <li>{@code tideline_placement_preemption_decisions_total{cluster, result}}: preemption plans
 *       received: {@code applied}, {@code stale} (ledger moved on / victim gone), {@code refused},
 *       {@code unnamed} (a reclaim decision naming a job quota's reclaim did not, ADR 0029).
 *   <li>{@code tideline_placement_migrations_total{cluster, kind}}: defrag migrations issued,
 *       {@code passive} or {@code active} (T3).
 *   <li>{@code tideline_placement_dead_letters_total{topic, error_class}}: refused input records.
 * </ul>
 */
public final class PlacementMeters {

  private final MeterRegistry registry;
  private final Map<String, Double> values = new ConcurrentHashMap<>();

  public PlacementMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  void deadLettered(String topic, String errorClass) {
    Counter.builder("tideline.placement.dead.letters")
        .description("Input records refused and dead-lettered, by kind of error")
        .tag("topic", topic).tag("error_class", errorClass).register(registry).increment();
  }

  void decision(String cluster, String outcome) {
    Counter.builder("tideline.placement.decisions")
        .description("Placement decisions written, by outcome")
        .tag("cluster", cluster).tag("outcome", outcome).register(registry).increment();
  }

  void preemptionDecision(String cluster, String result) {
    Counter.builder("tideline.placement.preemption.decisions")
        .description("Preemption plans received, by what placement did with them")
        .tag("cluster", cluster).tag("result", result).register(registry).increment();
  }

  void migration(String cluster, String kind) {
    Counter.builder("tideline.placement.migrations")
        .description("Defragmentation migrations issued (T3)")
        .tag("cluster", cluster).tag("kind", kind).register(registry).increment();
  }

  void queueLength(String cluster, String lane, int length) {
    gauge("tideline.placement.queue.length", "Jobs waiting per lane (Q6)", length,
        "cluster", cluster, "lane", lane);
  }

  void ledger(String cluster, long version, int idleGpus) {
    gauge("tideline.placement.ledger.version", "Allocation ledger version", version,
        "cluster", cluster);
    gauge("tideline.placement.idle.gpus", "Whole idle GPUs", idleGpus, "cluster", cluster);
  }

  /**
   * Reads one step's outcome into the meters: counters from its effects, gauges from the state
   * after a tick (the only steps that decide).
   */
  void step(String cluster, HostResult<PlacementState> r, PlacementHost host, boolean tick) {
    for (Object e : r.effects()) {
      if (e instanceof PlacementEffect.Decided d) {
        decision(cluster, d.outcome().name());
      } else if (e instanceof PlacementEffect.Counted c) {
        if (c.counter().equals("migration")) {
          migration(cluster, c.tag());
        } else {
          preemptionDecision(cluster, c.tag());
        }
      } else if (e instanceof PlacementEffect.Fragmentation f) {
        gauge("tideline.placement.cluster.fragmentation", "Cluster fragmentation index (T2)",
            f.index(), "cluster", cluster);
        for (PlacementEffect.NodeFigure n : f.nodes()) {
          gauge("tideline.placement.node.fragmentation", "Node fragmentation index (T2)",
              n.index(), "cluster", cluster, "node", n.nodeId());
        }
      }
    }
    if (tick) {
      host.kernel().queueLengths(r.state()).forEach((lane, n) -> queueLength(cluster,
          lane.name(), n));
      var snap = r.state().cluster().snapshot();
      ledger(cluster, r.state().cluster().version(), snap == null ? 0 : snap.idleGpus());
    }
  }

  /** The value a gauge last reported, for tests; NaN when never set. */
  public double value(String name, String... tags) {
    return values.getOrDefault(key(name, tags), Double.NaN);
  }

  private void gauge(String name, String description, double value, String... tags) {
    String key = key(name, tags);
    if (values.put(key, value) == null) {
      Gauge.builder(name, values, m -> m.getOrDefault(key, Double.NaN))
          .description(description).tags(tags).register(registry);
    }
  }

  private static String key(String name, String... tags) {
    return name + "|" + String.join("|", tags);
  }
}
