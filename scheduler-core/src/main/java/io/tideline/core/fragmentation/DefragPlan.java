package io.tideline.core.fragmentation;

import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.trace.TraceEntry;
import java.util.List;

/**
 * A defragmentation proposal (T3): migrations to execute in order, what they cost against the T4
 * budget, the fragmentation before and after, and the rule trace. Nothing here has been applied.
 *
 * @param migrations the moves, in execution order; empty when nothing should move
 * @param migratedGpus GPU share the plan moves
 * @param budgetGpus GPU share the T4 rate limit still allowed when planning
 * @param fragmentationBefore cluster index before the plan
 * @param fragmentationAfter cluster index if the plan is executed
 * @param unlocked passive plans: the placement the failed job would get after the moves, or
 *     {@code null} (active plans, or no plan found)
 * @param trace the rules applied
 */
public record DefragPlan(List<Migration> migrations, double migratedGpus, double budgetGpus,
    double fragmentationBefore, double fragmentationAfter, PlacementDecision unlocked,
    List<TraceEntry> trace) {

  public DefragPlan {
    migrations = List.copyOf(migrations);
    trace = List.copyOf(trace);
  }

  /** Whether the plan proposes any move. */
  public boolean isEmpty() {
    return migrations.isEmpty();
  }
}
