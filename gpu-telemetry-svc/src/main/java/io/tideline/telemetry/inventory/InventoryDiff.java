package io.tideline.telemetry.inventory;

import io.tideline.events.NodeChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Node events from two successive inventory snapshots (pure; not a scheduling decision, so it
 * lives with its only user). Rules, per node id in sorted order:
 *
 * <ol>
 *   <li>only in the new snapshot: JOINED (followed by DRAINED if it arrives drained);
 *   <li>only in the old one: LEFT, carrying its last known state;
 *   <li>in both and newly drained, or changed while drained: DRAINED (the latest record of a
 *       drained node always says DRAINED, so a compacted topic keeps the fact);
 *   <li>in both and otherwise changed (including un-drained): UPDATED;
 *   <li>unchanged: nothing.
 * </ol>
 */
public final class InventoryDiff {

  /** One event. */
  public record Change(NodeChange change, NodeState node) {}

  private InventoryDiff() {}

  public static List<Change> diff(Map<String, NodeState> before, Map<String, NodeState> after) {
    TreeSet<String> ids = new TreeSet<>(before.keySet());
    ids.addAll(after.keySet());
    List<Change> out = new ArrayList<>();
    for (String id : ids) {
      NodeState was = before.get(id);
      NodeState now = after.get(id);
      if (was == null) {
        out.add(new Change(NodeChange.JOINED, now));
        if (now.drained()) {
          out.add(new Change(NodeChange.DRAINED, now));
        }
      } else if (now == null) {
        out.add(new Change(NodeChange.LEFT, was));
      } else if (!was.equals(now)) {
        out.add(new Change(now.drained() ? NodeChange.DRAINED : NodeChange.UPDATED, now));
      }
    }
    return out;
  }
}
