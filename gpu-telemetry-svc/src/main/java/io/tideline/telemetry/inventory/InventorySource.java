package io.tideline.telemetry.inventory;

import java.util.SortedMap;

/**
 * Where the node list comes from: topology and GPU files, or the Kubernetes API. A source that
 * cannot be read throws; the caller keeps its previous snapshot, so an unreachable API server is
 * never mistaken for every node leaving.
 */
public interface InventorySource {

  /** The current nodes, by node id. */
  SortedMap<String, NodeState> snapshot() throws Exception;
}
