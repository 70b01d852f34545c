package io.tideline.core.cluster.state;

import io.tideline.core.cluster.Node;
import java.time.Instant;
import java.util.Objects;

/**
 * A node as the last inventory record said: its hardware and topology ({@link Node}), its status
 * and when it was observed.
 *
 * @param node hardware and switch path
 * @param status in service, cordoned or gone
 * @param observedAt event time of the inventory record
 */
public record NodeRecord(Node node, NodeStatus status, Instant observedAt) {

  public NodeRecord {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(observedAt, "observedAt");
  }

  /** The node id. */
  public String id() {
    return node.id();
  }

  /** Whether the record describes the same node in the same status (a repeat changes nothing). */
  public boolean sameAs(NodeRecord other) {
    return other != null && node.equals(other.node) && status == other.status;
  }
}
