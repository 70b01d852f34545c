package io.tideline.telemetry.inventory;

import io.quarkus.scheduler.Scheduled;
import io.tideline.events.GpuInfo;
import io.tideline.events.NodeInventory;
import io.tideline.events.SwitchPath;
import io.tideline.platform.TidelineConfig;
import io.tideline.platform.intake.JobRequests;
import io.tideline.telemetry.TelemetryConfig;
import io.tideline.telemetry.TelemetryMeters;
import io.tideline.telemetry.publish.TelemetryProducer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * Publishes cluster.inventory (compacted, key nodeId): every interval it reads the inventory
 * source, diffs it against the last snapshot ({@link InventoryDiff}) and writes one NodeInventory
 * event per change. The first read after start reports every node JOINED — an idempotent upsert on
 * a compacted topic. A LEFT event is a value, not a tombstone, so the departure stays readable.
 * A source that fails keeps the previous snapshot: an unreachable API server never reads as every
 * node leaving. The Kubernetes source is a node informer: it also publishes each change as it
 * happens.
 */
@ApplicationScoped
public class InventoryPublisher {

  private static final Logger LOG = Logger.getLogger(InventoryPublisher.class);

  private final String cluster;
  private final InventorySource source;
  private final TelemetryProducer producer;
  private final TelemetryMeters meters;
  private SortedMap<String, NodeState> last = new TreeMap<>();

  public InventoryPublisher(TidelineConfig tideline, TelemetryConfig config,
      TelemetryProducer producer, TelemetryMeters meters, Instance<KubernetesClient> kubernetes) {
    this.cluster = tideline.cluster();
    this.source = create(config.inventory(), kubernetes);
    this.producer = producer;
    this.meters = meters;
  }

  /** Starts the node informer, so node changes are published as they happen (not at the next tick). */
  void onStart(@Observes StartupEvent ev) {
    if (source instanceof KubernetesNodeSource k) {
      try {
        k.start(() -> {
          try {
            refresh(Instant.now());
          } catch (Exception e) {
            LOG.errorf("inventory not refreshed after a node change: %s", e);
          }
        });
      } catch (java.io.IOException e) {
        LOG.errorf("node informer not started (the periodic refresh retries): %s", e.getMessage());
      }
    }
  }

  @PreDestroy
  void close() {
    if (source instanceof KubernetesNodeSource k) {
      k.close();
    }
  }

  static InventorySource create(TelemetryConfig.Inventory c, Instance<KubernetesClient> kubernetes) {
    FileInventorySource.GpuDefaults defaults = new FileInventorySource.GpuDefaults(
        c.defaultGpuModel(), c.defaultGpuCount(), c.defaultGpuMemoryMiB(), c.defaultNvlinkIslands());
    List<String> drain = c.drainList().orElse(List.of());
    return switch (c.source()) {
      case FILE -> c.topologyFile().<InventorySource>map(t ->
          new FileInventorySource(t, c.gpuFile().orElse(null), defaults, drain)).orElse(null);
      case KUBERNETES -> {
        TelemetryConfig.Kubernetes k = c.kubernetes();
        yield new KubernetesNodeSource(kubernetes.get(), k.labelSelector(),
            new KubernetesNodeSource.TopologyLabels(k.accessSwitchLabels(),
                k.aggregationSwitchLabels(), k.coreSwitchLabels(), k.nvlinkIslandsLabel()),
            defaults, drain);
      }
      case NONE -> null;
    };
  }

  @Scheduled(every = "${tideline.telemetry.inventory.interval}", delayed = "1s",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void scheduled() {
    if (source == null) {
      return;
    }
    try {
      refresh(Instant.now());
    } catch (Exception e) {
      LOG.errorf("inventory not refreshed, keeping the last snapshot of %d nodes: %s", last.size(), e);
    }
  }

  /** Reads the source once and publishes the changes, observed at {@code now}. */
  public synchronized List<NodeInventory> refresh(Instant now) throws Exception {
    return publish(source.snapshot(), now);
  }

  /** Diffs {@code next} against the last snapshot and publishes the changes. */
  public synchronized List<NodeInventory> publish(SortedMap<String, NodeState> next, Instant now) {
    List<NodeInventory> events = new ArrayList<>();
    for (InventoryDiff.Change c : InventoryDiff.diff(last, next)) {
      events.add(toAvro(cluster, c, now));
    }
    producer.inventory(events);
    events.forEach(e -> meters.inventoryChange(e.getChange().name()));
    last = new TreeMap<>(next);
    return events;
  }

  /** The Avro event of one change. */
  public static NodeInventory toAvro(String cluster, InventoryDiff.Change c, Instant now) {
    NodeState n = c.node();
    List<GpuInfo> gpus = new ArrayList<>(n.gpuCount());
    int islands = Math.max(1, n.nvlinkIslands());
    int perIsland = Math.max(1, (n.gpuCount() + islands - 1) / islands);
    for (int i = 0; i < n.gpuCount(); i++) {
      gpus.add(GpuInfo.newBuilder().setIndex(i).setUuid(null).setNvlinkIsland(i / perIsland).build());
    }
    return NodeInventory.newBuilder()
        .setCluster(cluster)
        .setNodeId(n.nodeId())
        .setChange(c.change())
        .setObservedAt(now)
        .setGpuModel(n.gpuModel())
        .setGpuMemoryMiB(n.gpuMemoryMiB())
        .setGpuCount(n.gpuCount())
        .setGpus(gpus)
        .setSwitchPath(SwitchPath.newBuilder().setAccessSwitch(n.accessSwitch())
            .setAggregationSwitch(n.aggregationSwitch()).setCoreSwitch(n.coreSwitch()).build())
        .setLabels(new java.util.HashMap<>(n.labels()))
        .setAllocatable(JobRequests.quantities(n.allocatable()))
        .build();
  }
}
