package io.tideline.core.cluster.state;

/** What inventory says of a node: in service, cordoned (drained: running work finishes), or gone. */
public enum NodeStatus {
  /** In service: placement may use it. */
  ACTIVE,
  /** Cordoned: running work finishes, nothing new is placed there. */
  DRAINED,
  /** Gone: not part of the topology; whatever ran there is lost. */
  LEFT
}
