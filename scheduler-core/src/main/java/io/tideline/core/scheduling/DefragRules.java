package io.tideline.core.scheduling;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.fragmentation.ActiveDefragPlanner;
import io.tideline.core.fragmentation.DefragPlan;
import io.tideline.core.fragmentation.Migration;
import io.tideline.core.fragmentation.PassiveDefragPlanner;
import io.tideline.core.fragmentation.PastMigration;
import io.tideline.core.model.JobRequest;
import io.tideline.core.placement.Placer;
import io.tideline.core.scheduling.PlacementEffect.EvictionKind;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.slots.SlotClass;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * When defragmentation runs and how a plan is enacted (T2–T4). The plans themselves are the core
 * planners' ({@link PassiveDefragPlanner}, {@link ActiveDefragPlanner}); this class owns the gates:
 * <ol>
 *   <li><b>Slot</b> (F4): the class of the forecast slot containing now, else the policy's
 *       default; never at PEAK (T4).</li>
 *   <li><b>Passive</b> (T3): on a FRAGMENTED refusal, at most one plan per
 *       {@link PlacementPolicy#passiveDefragInterval()} and only while the T4 window has at least
 *       one GPU of budget left; a complete plan moves the migrants and holds the unlocked GPUs for
 *       the job.</li>
 *   <li><b>Active</b> (T3): in the policy's active slots, at most once per
 *       {@link PlacementPolicy#activeDefragInterval()}, against the demand of the queue and the
 *       running jobs.</li>
 *   <li><b>Enacting</b>: each migration binds the job to its target, holds the GPUs it leaves
 *       until it runs there (MIGRATION hold), emits a MIGRATE eviction and a MIGRATED decision,
 *       and counts against the T4 window.</li>
 * </ol>
 */
final class DefragRules {

  private final PlacementPolicy policy;
  private final PassiveDefragPlanner passive;
  private final ActiveDefragPlanner active;

  DefragRules(PlacementPolicy policy, Placer placer) {
    this.policy = policy;
    this.passive = new PassiveDefragPlanner(policy.defrag(), placer);
    this.active = new ActiveDefragPlanner(policy.defrag(), placer);
  }

  /** Forecast slots are keyed by their start, zero-padded so text order is time order. */
  static String slotKey(Instant start) {
    return String.format(java.util.Locale.ROOT, "%015d", start.toEpochMilli());
  }

  /** The slot class now (rule 1). */
  SlotClass slot(Cycle c) {
    Map.Entry<String, SlotWindow> e = floor(c, slotKey(c.now));
    if (e != null && e.getValue().end().isAfter(c.now)) {
      return e.getValue().slotClass();
    }
    return policy.defaultSlotClass();
  }

  private static Map.Entry<String, SlotWindow> floor(Cycle c, String key) {
    Map.Entry<String, SlotWindow> best = null;
    for (Map.Entry<String, SlotWindow> e : c.forecasts.asMap().entrySet()) {
      if (e.getKey().compareTo(key) <= 0) {
        best = e;
      } else {
        break;
      }
    }
    return best;
  }

  /** Migrations of the T4 window. */
  List<PastMigration> recent(Cycle c) {
    Instant from = c.now.minus(policy.defrag().period());
    List<PastMigration> out = new ArrayList<>();
    for (PastMigration m : c.meta.migrations()) {
      if (m.at().isAfter(from)) {
        out.add(m);
      }
    }
    return out;
  }

  private double budgetLeft(Cycle c) {
    double used = 0;
    for (PastMigration m : recent(c)) {
      used += m.gpuShare();
    }
    return policy.defrag().maxMigratedFraction() * c.snap().topology().totalGpus() - used;
  }

  /** Rule 2's gates: interval and budget. */
  boolean passiveDue(Cycle c) {
    Instant last = c.meta.lastPassiveDefrag();
    return (last == null || !c.now.isBefore(last.plus(policy.passiveDefragInterval())))
        && budgetLeft(c) >= 1;
  }

  /** Rule 2: plans for {@code job}; returns whether it is now held for unlocked GPUs. */
  boolean passive(Cycle c, JobRequest job) {
    c.meta = c.meta.withPassiveDefrag(c.now);
    DefragPlan plan = passive.plan(c.now, c.snap(), job, slot(c), recent(c));
    if (plan.isEmpty() || plan.unlocked() == null || !plan.unlocked().placed()) {
      return false;
    }
    String id = job.jobId();
    String decisionId = policy.cluster() + "/defrag/" + id + "/v" + c.version();
    Set<String> migrants = migrate(c, plan, decisionId, "passive");
    Hold hold = new Hold(Hold.holdOf(id), Hold.Kind.DEFRAG_JOB, id, decisionId, migrants,
        plan.unlocked().assignments());
    c.setHold(hold);
    List<TraceEntry> trace = new ArrayList<>(plan.trace());
    trace.add(new TraceEntry(id, "T3 passive defrag", "held", "GPUs "
        + QueuePass.gpus(hold.assignments()) + " held until " + migrants
        + " run at their targets"));
    c.mark(id, c.mark(id).withAnnounced(true));
    c.queued(id, trace);
    return true;
  }

  /** Rule 3. */
  void active(Cycle c, QueuePass pass) {
    SlotClass slot = slot(c);
    if (slot == SlotClass.PEAK || !policy.defrag().activeSlots().contains(slot)) {
      return;
    }
    Instant last = c.meta.lastActiveDefrag();
    if (last != null && c.now.isBefore(last.plus(policy.activeDefragInterval()))) {
      return;
    }
    c.meta = c.meta.withActiveDefrag(c.now);
    DefragPlan plan = active.plan(c.now, c.snap(), slot, pass.demand(c), recent(c));
    if (!plan.isEmpty()) {
      migrate(c, plan, policy.cluster() + "/defrag/active/v" + c.version(), "active");
    }
  }

  /** Rule 4: enacts a plan's moves in order; returns the migrants. */
  private Set<String> migrate(Cycle c, DefragPlan plan, String decisionId, String kind) {
    Set<String> migrants = new TreeSet<>();
    List<PastMigration> window = new ArrayList<>(recent(c));
    for (Migration m : plan.migrations()) {
      Binding b = c.cluster.bindings().get(m.jobId());
      if (b == null) {
        continue;
      }
      c.bind(m.jobId(), m.to());
      migrants.add(m.jobId());
      String holdId = Hold.migrationOf(m.jobId());
      List<GpuAssignment> source = new ArrayList<>(m.from());
      Hold prior = c.cluster.holds().get(holdId);
      if (prior != null) {
        source.addAll(prior.assignments());
      }
      c.setHold(new Hold(holdId, Hold.Kind.MIGRATION, "", decisionId, Set.of(m.jobId()),
          source));
      c.effects.add(new PlacementEffect.Evict(decisionId + "/" + m.jobId(), m.jobId(),
          EvictionKind.MIGRATE, decisionId, true, policy.evictionGraceSeconds(), m.to(), 0, 0,
          m.reason(), c.now));
      c.decide(m.jobId(), Outcome.MIGRATED, m.to(), c.levelOf(m.to()),
          c.levelOf(m.to()).crossesSwitchDomain(), 0, List.of(new TraceEntry(m.jobId(),
              "T3 " + kind + " defrag", "migrate", m.reason())));
      window.add(new PastMigration(c.now, m.gpuShare()));
      c.count("migration", kind);
    }
    c.meta = c.meta.withMigrations(window);
    return migrants;
  }
}
