package io.tideline.core.quota;

import io.tideline.core.model.WorkloadClass.Lane;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The declarative quota hierarchy (requirement Q2) and its version: who exists, what each keeps,
 * borrows and lends, and who may preempt. Immutable; lookups are by path in sorted maps so nothing
 * depends on hash order. Check it with {@link QuotaDefinitionValidator} before use: lookups here
 * tolerate a broken definition (first node wins on a duplicate path) so the validator can report
 * every problem at once.
 */
public final class QuotaDefinition {

  private final String version;
  private final List<QuotaNode> nodes;
  private final TreeMap<String, QuotaNode> byPath = new TreeMap<>();
  private final TreeMap<String, List<QuotaNode>> children = new TreeMap<>();
  private final double queueFloorSum;

  private QuotaDefinition(String version, List<QuotaNode> nodes) {
    this.version = version;
    this.nodes = List.copyOf(nodes);
    for (QuotaNode n : this.nodes) {
      if (n.path() != null) {
        byPath.putIfAbsent(n.path(), n);
      }
    }
    for (QuotaNode n : byPath.values()) {
      String parent = n.parentPath();
      if (parent != null) {
        children.computeIfAbsent(parent, k -> new ArrayList<>()).add(n);
      }
    }
    children.replaceAll((k, v) -> List.copyOf(v));
    queueFloorSum = byPath.values().stream().filter(n -> n.kind() == NodeKind.QUEUE)
        .mapToDouble(QuotaNode::guaranteedGpus).sum();
  }

  /** A definition from its nodes, in any order. */
  public static QuotaDefinition of(String version, List<QuotaNode> nodes) {
    return new QuotaDefinition(version, nodes);
  }

  public static QuotaDefinition of(String version, QuotaNode... nodes) {
    return new QuotaDefinition(version, List.of(nodes));
  }

  public String version() {
    return version;
  }

  /** The nodes as declared (including any duplicates, for validation). */
  public List<QuotaNode> nodes() {
    return nodes;
  }

  public Optional<QuotaNode> node(String path) {
    return Optional.ofNullable(path == null ? null : byPath.get(path));
  }

  /** The organisation root (the first by path if several were declared). */
  public Optional<QuotaNode> root() {
    return byPath.values().stream().filter(n -> n.kind() == NodeKind.ORGANISATION).findFirst();
  }

  /** Direct children of a node, by path. */
  public List<QuotaNode> children(String path) {
    return children.getOrDefault(path, List.of());
  }

  /** Every queue (leaf that holds usage), by path. */
  public List<QuotaNode> queues() {
    return byPath.values().stream().filter(n -> n.kind() == NodeKind.QUEUE).toList();
  }

  /** The node and its ancestors, from the node up to the root (only nodes that exist). */
  public List<QuotaNode> ancestry(String path) {
    List<QuotaNode> out = new ArrayList<>();
    String p = path;
    while (p != null) {
      QuotaNode n = byPath.get(p);
      if (n != null) {
        out.add(n);
      }
      int i = p.lastIndexOf('/');
      p = i < 0 ? null : p.substring(0, i);
    }
    return out;
  }

  /** The business line a job's {@code tenant} names, under the root. */
  public Optional<QuotaNode> businessLine(String tenant) {
    return root().flatMap(r -> node(r.path() + "/" + tenant))
        .filter(n -> n.kind() == NodeKind.BUSINESS_LINE);
  }

  /** The team a job's {@code tenant}/{@code team} names. */
  public Optional<QuotaNode> team(String tenant, String team) {
    return businessLine(tenant).flatMap(b -> node(b.path() + "/" + team))
        .filter(n -> n.kind() == NodeKind.TEAM);
  }

  /** The team's queue for a lane (Q6), if it has one. */
  public Optional<QuotaNode> queue(String tenant, String team, Lane lane) {
    return team(tenant, team).flatMap(t -> children(t.path()).stream()
        .filter(n -> n.kind() == NodeKind.QUEUE && n.lane() == lane).findFirst());
  }

  /** W4 entitlements in force at a node: its own, else the nearest ancestor's, else none. */
  public Set<PreemptionGrant> grants(String path) {
    for (QuotaNode n : ancestry(path)) {
      if (n.preemptionGrants() != null) {
        return n.preemptionGrants();
      }
    }
    return Set.of();
  }

  /**
   * The queue that serves an online service (Q5 mapping), if one declares it; the first by path if
   * the (invalid) definition maps it twice.
   */
  public Optional<QuotaNode> queueServing(String service) {
    return byPath.values().stream()
        .filter(n -> n.kind() == NodeKind.QUEUE && n.services().contains(service)).findFirst();
  }

  /** Sum of all queue floors: the GPUs held as guarantees. */
  public double queueFloorSum() {
    return queueFloorSum;
  }
}
