package io.tideline.core.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The interconnect view of the fleet (T1): every node and, for each {@link TopologyLevel}, which
 * domain it belongs to. Built once from inventory and shared by every snapshot, so a decision can
 * sum free GPUs per domain with plain array indexing instead of string maps.
 *
 * <p>Nodes are indexed in id order and domains in key order at every level, so "lowest index" is a
 * deterministic tie-break everywhere.
 */
public final class Topology {

  private static final TopologyLevel[] LEVELS = TopologyLevel.values();

  private final List<Node> nodes;
  private final Map<String, Integer> indexById;
  private final String[][] domainKeys;
  private final int[][] domainOf;
  private final int[][][] members;
  private final List<String> gpuModels;
  private final int[] modelOf;
  private final int totalGpus;
  private final int maxGpusPerNode;

  private Topology(List<Node> sorted) {
    this.nodes = List.copyOf(sorted);
    int n = nodes.size();
    this.indexById = new HashMap<>(n * 2);
    int gpus = 0;
    int maxPerNode = 0;
    for (int i = 0; i < n; i++) {
      Node node = nodes.get(i);
      if (indexById.put(node.id(), i) != null) {
        throw new IllegalArgumentException("duplicate node id " + node.id());
      }
      gpus += node.gpuCount();
      maxPerNode = Math.max(maxPerNode, node.gpuCount());
    }
    this.totalGpus = gpus;
    this.maxGpusPerNode = maxPerNode;
    this.domainKeys = new String[LEVELS.length][];
    this.domainOf = new int[LEVELS.length][n];
    this.members = new int[LEVELS.length][][];
    for (TopologyLevel level : LEVELS) {
      // 1. collect the distinct keys of this level in sorted order
      TreeMap<String, List<Integer>> byKey = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        byKey.computeIfAbsent(nodes.get(i).domainKey(level), k -> new ArrayList<>()).add(i);
      }
      // 2. number the domains in key order and remember each node's domain and members
      int l = level.ordinal();
      domainKeys[l] = byKey.keySet().toArray(new String[0]);
      members[l] = new int[domainKeys[l].length][];
      int d = 0;
      for (List<Integer> idx : byKey.values()) {
        members[l][d] = idx.stream().mapToInt(Integer::intValue).toArray();
        for (int i : members[l][d]) {
          domainOf[l][i] = d;
        }
        d++;
      }
    }
    TreeSet<String> models = new TreeSet<>();
    nodes.forEach(node -> models.add(node.gpuModel()));
    this.gpuModels = List.copyOf(models);
    this.modelOf = new int[n];
    for (int i = 0; i < n; i++) {
      modelOf[i] = gpuModels.indexOf(nodes.get(i).gpuModel());
    }
  }

  /** Builds the view over {@code nodes}; node ids must be unique. */
  public static Topology of(Collection<Node> nodes) {
    List<Node> sorted = new ArrayList<>(nodes);
    sorted.sort(Comparator.comparing(Node::id));
    return new Topology(sorted);
  }

  /** Number of nodes. */
  public int size() {
    return nodes.size();
  }

  /** All nodes in id order. */
  public List<Node> nodes() {
    return nodes;
  }

  /** The node at {@code index} (id order). */
  public Node node(int index) {
    return nodes.get(index);
  }

  /** The index of the node with {@code id}, or -1 when unknown. */
  public int indexOf(String id) {
    Integer i = indexById.get(id);
    return i == null ? -1 : i;
  }

  /** GPUs in the whole cluster. */
  public int totalGpus() {
    return totalGpus;
  }

  /** GPUs on the largest node (the "whole node" demand of T2). */
  public int maxGpusPerNode() {
    return maxGpusPerNode;
  }

  /** Distinct GPU models, sorted. */
  public List<String> gpuModels() {
    return gpuModels;
  }

  /** Index into {@link #gpuModels()} of the node's model. */
  public int modelIndex(int node) {
    return modelOf[node];
  }

  /** Number of domains at {@code level}. */
  public int domainCount(TopologyLevel level) {
    return domainKeys[level.ordinal()].length;
  }

  /** Key of domain {@code domain} at {@code level}. */
  public String domainKey(TopologyLevel level, int domain) {
    return domainKeys[level.ordinal()][domain];
  }

  /** The domain of node {@code node} at {@code level}. */
  public int domainOf(TopologyLevel level, int node) {
    return domainOf[level.ordinal()][node];
  }

  /** Number of nodes in a domain. */
  public int memberCount(TopologyLevel level, int domain) {
    return members[level.ordinal()][domain].length;
  }

  /** The {@code k}-th node (ascending index) of a domain. */
  public int member(TopologyLevel level, int domain, int k) {
    return members[level.ordinal()][domain][k];
  }
}
