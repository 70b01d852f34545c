package io.tideline.telemetry.inventory;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tideline.core.model.Resources;
import io.tideline.platform.kubernetes.KubernetesResources;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The production inventory: a shared informer on the Kubernetes nodes, on the fabric8 client the
 * executor uses too (issue #17, point 5). Joins, leaves, cordons and label changes arrive as they
 * happen (the {@code onChange} callback), and {@link #snapshot} reads the informer's cache, so the
 * periodic refresh costs no API call. The client is configured the fabric8 way: the pod's service
 * account in a cluster, {@code KUBECONFIG} / {@code ~/.kube/config} elsewhere,
 * {@code quarkus.kubernetes-client.*} to override.
 *
 * <ul>
 *   <li>GPU count: {@code status.capacity["nvidia.com/gpu"]}; model: label
 *       {@code nvidia.com/gpu.product} (GPU feature discovery; dashes as written); memory per GPU:
 *       label {@code nvidia.com/gpu.memory} (MiB). Missing figures fall back to the configured
 *       defaults.
 *   <li>Switch path: the first present label of each configured list (e.g. a site's
 *       {@code network.tideline.io/asw}, or {@code topology.kubernetes.io/zone}); absent →
 *       {@code unknown}.
 *   <li>CPU, memory and extended resources (ADR 0030): {@code status.allocatable}, read by
 *       the placement rule shared with the executor's pod intake
 *       ({@link KubernetesResources}: millicores, bytes, whole units, rounded down; the GPU
 *       resource, {@code pods}, {@code ephemeral-storage}, hugepages and {@code kubernetes.io/…}
 *       are not placed). A quantity the API server should never have accepted (out of bounds,
 *       unparseable) leaves that one resource undeclared rather than hiding the node.
 *   <li>DRAINED: {@code spec.unschedulable} (kubectl cordon/drain), the
 *       {@code node.kubernetes.io/unschedulable} taint, a Ready condition that is not True, or the
 *       configured drain list.
 * </ul>
 */
public final class KubernetesNodeSource implements InventorySource, AutoCloseable {

  /** Label keys that place a node in the network. */
  public record TopologyLabels(List<String> access, List<String> aggregation, List<String> core,
      String nvlinkIslands) {}

  static final String UNKNOWN = "unknown";
  /** The extended resource the NVIDIA device plugin advertises GPUs as. */
  static final String GPU_RESOURCE = "nvidia.com/gpu";

  private final KubernetesClient client;
  private final String labelSelector;
  private final TopologyLabels topology;
  private final FileInventorySource.GpuDefaults defaults;
  private final Set<String> drainList;
  private SharedIndexInformer<Node> informer;

  public KubernetesNodeSource(KubernetesClient client, String labelSelector,
      TopologyLabels topology, FileInventorySource.GpuDefaults defaults, List<String> drainList) {
    this.client = client;
    this.labelSelector = labelSelector;
    this.topology = topology;
    this.defaults = defaults;
    this.drainList = Set.copyOf(drainList);
  }

  /**
   * Starts the node informer (once) and waits for its first list; {@code onChange} runs on every
   * add, update and delete after that.
   */
  public synchronized void start(Runnable onChange) throws IOException {
    if (informer != null) {
      return;
    }
    FilterWatchListDeletable<Node, ?, ?> nodes = labelSelector == null || labelSelector.isBlank()
        ? client.nodes() : client.nodes().withLabelSelector(labelSelector);
    SharedIndexInformer<Node> i = nodes.runnableInformer(0);
    i.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node n) {
        onChange.run();
      }

      @Override
      public void onUpdate(Node before, Node n) {
        onChange.run();
      }

      @Override
      public void onDelete(Node n, boolean unknownFinalState) {
        onChange.run();
      }
    });
    try {
      i.start().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      i.stop();
      throw new IOException("the node informer could not list nodes from "
          + client.getMasterUrl() + ": " + e.getMessage(), e);
    }
    informer = i;
  }

  @Override
  public SortedMap<String, NodeState> snapshot() throws IOException {
    SharedIndexInformer<Node> i;
    synchronized (this) {
      i = informer;
    }
    if (i == null) {
      start(() -> { });
      i = informer;
    }
    if (!i.hasSynced()) {
      throw new IOException("the node informer has not synced with " + client.getMasterUrl());
    }
    return parse(i.getStore().list());
  }

  /** The nodes' states. */
  public SortedMap<String, NodeState> parse(Collection<Node> nodes) {
    SortedMap<String, NodeState> out = new TreeMap<>();
    for (Node item : nodes) {
      String name = item.getMetadata().getName();
      if (name == null || name.isEmpty()) {
        continue;
      }
      Map<String, String> labels = item.getMetadata().getLabels() == null ? new HashMap<>()
          : new HashMap<>(item.getMetadata().getLabels());
      Quantity gpus = item.getStatus() == null || item.getStatus().getCapacity() == null ? null
          : item.getStatus().getCapacity().get(GPU_RESOURCE);
      int count = intOr(gpus == null ? null : gpus.getAmount(), defaults.count());
      String model = labels.getOrDefault("nvidia.com/gpu.product", defaults.model());
      int memory = intOr(labels.get("nvidia.com/gpu.memory"), defaults.memoryMiB());
      int islands = intOr(labels.get(topology.nvlinkIslands()), defaults.nvlinkIslands());
      NodeState.SwitchPath sw = NodeState.qualify(first(labels, topology.core()),
          first(labels, topology.aggregation()), first(labels, topology.access()));
      boolean drained = Boolean.TRUE.equals(item.getSpec() == null ? null
          : item.getSpec().getUnschedulable()) || hasUnschedulableTaint(item) || !ready(item)
          || drainList.contains(name);
      out.put(name, new NodeState(name, model, memory, count, islands, sw.access(), sw.aggregation(), sw.core(),
          drained, labels, allocatable(item)));
    }
    return out;
  }

  /**
   * What the node offers pods besides GPUs: the placed part of {@code status.allocatable}, each
   * quantity parsed and converted once by {@link KubernetesResources#allocatable}, which leaves an
   * unparseable or out-of-range one undeclared (see the class comment).
   */
  static Resources allocatable(Node item) {
    if (item.getStatus() == null || item.getStatus().getAllocatable() == null) {
      return Resources.NONE;
    }
    return KubernetesResources.allocatable(item.getStatus().getAllocatable(),
        Quantity::getNumericalAmount, GPU_RESOURCE);
  }

  private static boolean hasUnschedulableTaint(Node item) {
    if (item.getSpec() == null || item.getSpec().getTaints() == null) {
      return false;
    }
    for (Taint t : item.getSpec().getTaints()) {
      if ("node.kubernetes.io/unschedulable".equals(t.getKey())) {
        return true;
      }
    }
    return false;
  }

  private static boolean ready(Node item) {
    if (item.getStatus() == null || item.getStatus().getConditions() == null) {
      return true;
    }
    for (NodeCondition c : item.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return true; // no conditions reported: nothing says it is unready
  }

  private static String first(Map<String, String> labels, List<String> keys) {
    for (String k : keys) {
      String v = labels.get(k);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return UNKNOWN;
  }

  private static int intOr(String s, int fallback) {
    if (s == null || s.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  @Override
  public synchronized void close() {
    if (informer != null) {
      informer.stop();
      informer = null;
    }
  }
}
