package io.tideline.core.scheduling;

import io.tideline.core.cluster.GpuAssignment;
import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.ClusterState;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.cluster.state.NodeStatus;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass;
import io.tideline.core.placement.Placer;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer.Trigger;
import io.tideline.core.trace.TraceEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The placement kernel: the queue and the allocation ledger of one cluster as a pure state
 * machine, {@code step(now, state, input) → (state, effects)}. placement-svc runs it as the single
 * writer of the cluster; the simulator's twin runs the very same kernel in-process.
 *
 * <p>Every input but a tick waits in the state's {@link Inbox} (ADR 0008). At a tick at {@code t}
 * the kernel, in this order:
 * <ol>
 *   <li>applies every waiting input timed before {@code t}, in canonical order
 *       ({@link #apply}): inventory (a node that LEFT releases what ran there and requeues it),
 *       submissions, verdicts, lifecycle (a stop releases, requeues with compensation or forgets,
 *       and advances holds), forecast slots, the forecaster's reservations (GPUs picked by
 *       {@link ReservationRules}), preemption's answers ({@link AnswerRules});</li>
 *   <li>drops service reservations that have ended, and re-offers parked jobs if the fleet
 *       changed;</li>
 *   <li>starts due reservations: asks preemption about the jobs on reserved GPUs
 *       ({@link ReservationRules#start});</li>
 *   <li>runs active defragmentation when its gates open ({@link DefragRules#active});</li>
 *   <li>runs the placement pass over the lanes ({@link QueuePass});</li>
 *   <li>publishes every queue position that changed ({@link Positions}) and a fragmentation
 *       report when one is due ({@link FragmentationEvents}).</li>
 * </ol>
 * Every ledger change goes through one fold ({@link Cycle#change}); every effect carries the
 * tick's time. A step that throws changes nothing (the adapter keeps the previous state).
 */
public final class PlacementKernel {

  private final PlacementPolicy policy;
  private final Placer placer;
  private final QueuePass pass;
  private final ReservationRules reservations;
  private final AnswerRules answers;
  private final DefragRules defrag;
  private final Positions positions;
  private final FragmentationEvents fragmentation;

  public PlacementKernel(PlacementPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.placer = new Placer(policy.placement());
    this.defrag = new DefragRules(policy, placer);
    this.pass = new QueuePass(policy, placer, defrag);
    this.reservations = new ReservationRules(policy);
    this.answers = new AnswerRules(policy, placer, pass);
    this.positions = new Positions(policy);
    this.fragmentation = new FragmentationEvents(policy);
  }

  /** Jobs waiting in each lane of {@code state} (for gauges and views). */
  public java.util.Map<WorkloadClass.Lane, Integer> queueLengths(PlacementState state) {
    Cycle c = new Cycle(policy, state.meta().now() == null ? Instant.EPOCH : state.meta().now(),
        state);
    java.util.Map<WorkloadClass.Lane, Integer> out = new java.util.EnumMap<>(
        WorkloadClass.Lane.class);
    pass.lanes(c).forEach((l, q) -> out.put(l, q.size()));
    return out;
  }

  /** The policy this kernel decides with. */
  public PlacementPolicy policy() {
    return policy;
  }

  /**
   * One step. {@code now} is the cluster time the adapter has reached (the last tick; {@code null}
   * before the first) — an input timed more than {@link PlacementPolicy#maxInputLead()} after it
   * is refused; a tick carries its own time.
   */
  public Step<PlacementState, PlacementEffect> step(Instant now, PlacementState state,
      PlacementInput input) {
    Instant clock = state.meta().now();
    if (input instanceof PlacementInput.ClockTick t) {
      return tick(state, t.tick());
    }
    Cycle c = new Cycle(policy, clock == null ? now : clock, state);
    Instant reference = clock != null ? clock : now;
    if (reference != null && input.at().isAfter(reference.plus(policy.maxInputLead()))) {
      c.refuse("event time " + input.at() + " is more than " + policy.maxInputLead()
          + " after the cluster clock " + reference + ": refused, it moves no clock");
      return new Step<>(state, c.effects, c.journal.changes());
    }
    c.inbox = c.inbox.add(input);
    c.journal.touch(PlacementState.META, "inbox");
    return new Step<>(c.commit(), c.effects, c.journal.changes());
  }

  private Step<PlacementState, PlacementEffect> tick(PlacementState state, Tick tick) {
    Instant clock = state.meta().now();
    if (clock != null && tick.at().isBefore(clock)) {
      Cycle c = new Cycle(policy, clock, state);
      c.refuse("tick at " + tick.at() + " is behind the cluster clock " + clock);
      return new Step<>(state, c.effects, c.journal.changes());
    }
    Cycle c = new Cycle(policy, tick.at(), state);
    c.meta = c.meta.withNow(tick.at());
    c.journal.touch(PlacementState.META, "meta");
    // 1. the inputs timed before the tick, in canonical order
    Inbox.Drained<PlacementInput> due = c.inbox.drainBefore(tick.at());
    c.inbox = due.rest();
    boolean fleetChanged = false;
    for (Inbox.Entry<PlacementInput> e : due.due()) {
      fleetChanged |= apply(c, e.input(), e.position().seq());
    }
    // quota's namings past their TTL go; answers waiting for quota's reclaim apply or expire
    answers.recheck(c);
    // 2. ended reservations go; a changed fleet may fit parked jobs
    reservations.dropEnded(c);
    if (fleetChanged) {
      for (String id : List.copyOf(c.queue.ids())) {
        QueueMark m = c.mark(id);
        if (m.parked()) {
          c.mark(id, m.withParked(false));
        }
      }
    }
    if (c.snap() != null) {
      // 3.–5. reservation starts, active defragmentation, the pass
      reservations.start(c, pass);
      defrag.active(c, pass);
      pass.run(c);
    }
    // 6. what the queue and the fleet look like now (the lanes once, for both)
    var lanes = pass.lanes(c);
    positions.publish(c, lanes);
    if (c.snap() != null) {
      fragmentation.report(c, pass.demand(c, lanes));
    }
    return new Step<>(c.commit(), c.effects, c.journal.changes());
  }

  // ------------------------------------------------------------------------------ inputs

  /** Applies one due input; returns whether the fleet changed. */
  private boolean apply(Cycle c, PlacementInput in, long seq) {
    if (in instanceof PlacementInput.Inventory i) {
      return inventory(c, i.node(), seq);
    } else if (in instanceof PlacementInput.Submission s) {
      ClusterState.Folded f = c.fold(new ClusterFact.Submitted(s.job()));
      if (f.refused() != null) {
        c.refuse(f.refused(), seq);
      }
    } else if (in instanceof PlacementInput.Verdict v) {
      c.fold(new ClusterFact.Admitted(v.jobId(), v.admission()));
    } else if (in instanceof PlacementInput.Lifecycle l) {
      lifecycle(c, l.fact());
    } else if (in instanceof PlacementInput.Forecast f) {
      reservations.forecast(c, f);
    } else if (in instanceof PlacementInput.ReservationCommand r) {
      if (c.snap() == null) {
        c.refuse("reservation " + r.reservationId() + " before any inventory of cluster "
            + policy.cluster(), seq);
      } else {
        reservations.command(c, r);
      }
    } else if (in instanceof PlacementInput.Reclaim r) {
      answers.named(c, r);
    } else if (in instanceof PlacementInput.PreemptionAnswer a) {
      answers.apply(c, a);
    }
    return false;
  }

  private boolean inventory(Cycle c, NodeRecord n, long seq) {
    NodeRecord node = policy.partitioned() ? partitioned(n) : n;
    if (!policy.topologyAware()) {
      Node x = node.node();
      node = new NodeRecord(new Node(x.id(), x.gpuModel(), x.gpuCount(), x.id(),
          new io.tideline.core.cluster.SwitchPath(FLAT, FLAT, FLAT)), node.status(),
          node.observedAt());
    }
    ClusterState.Folded f = c.fold(new ClusterFact.NodeObserved(node));
    if (f.refused() != null) {
      c.refuse(f.refused(), seq);
      return false;
    }
    if (node.status() == NodeStatus.LEFT) {
      nodeLeft(c, node, f);
    }
    return true;
  }

  /**
   * A node LEFT (the fold removed what was on it): every job that lost its allocation is
   * RELEASED with the reason and queued again (keeping verdict and boost); holders of dropped
   * holds queue again; holds waiting for a lost job stop waiting for it.
   */
  private void nodeLeft(Cycle c, NodeRecord n, ClusterState.Folded f) {
    String why = "node " + n.id() + " left the cluster at " + n.observedAt();
    for (String id : f.lost()) {
      stopEvicting(c, id);
      AnswerRules.forget(c, id);
      c.decide(id, Outcome.RELEASED, List.of(), null, false, 0, List.of(new TraceEntry(id,
          "T1 node left", "allocation lost", why + ": the job queues again")));
      requeued(c, id, why);
      holdsProgress(c, id, Event.FAILED);
    }
    for (String id : f.orphans()) {
      requeued(c, id, why + ": the GPUs held for the job are gone");
    }
  }

  /** A QUEUED decision saying why a job waits again. */
  private void requeued(Cycle c, String id, String why) {
    if (!c.cluster.knows(id) || c.cluster.runs(id)) {
      return;
    }
    c.mark(id, c.mark(id).withAnnounced(true));
    c.queued(id, List.of(new TraceEntry(id, "T1 node left", "requeued", why)));
  }

  /**
   * The executor's report: a stop releases the job's GPUs (with what it was evicted for); a
   * completion or failure forgets it; a preemption queues it again with compensation (P6) — or,
   * reclaimed (Q7), retires it; shrunk (Q7), queues it with fewer GPUs; then holds waiting for the
   * job advance.
   */
  private void lifecycle(Cycle c, ClusterFact.Lifecycle l) {
    String id = l.jobId();
    Event type = l.event();
    Evicting ev = type == Event.PREEMPTED || l.ends() ? stopEvicting(c, id) : null;
    if (type == Event.PREEMPTED || l.ends()) {
      AnswerRules.forget(c, id);
    }
    if (l.ends()) {
      release(c, id, type.name(), ev);
      c.fold(l);
      c.pending = c.pending.remove(c.journal, id);
      Hold own = c.cluster.holds().get(Hold.holdOf(id));
      if (own != null) {
        c.dropHold(own.id());
      }
      c.mark(id, QueueMark.NONE);
    } else if (type == Event.PREEMPTED) {
      release(c, id, type.name(), ev);
      c.fold(l);
      QueueMark m = c.mark(id).withAnnounced(false);
      if (ev != null && ev.trigger() == Trigger.IDLE_RECLAIM) {
        m = m.withRetired(true); // Q7: reclaimed, not queued again (its owner resubmits)
      } else if (ev != null && ev.trigger() == Trigger.SHRINK) {
        JobRequest j = c.cluster.request(id);
        long stretched = j == null || j.expectedDurationSeconds() <= 0 || ev.shrinkToGpus() <= 0
            ? 0 : (long) Math.ceil(j.expectedDurationSeconds() * (double) j.gpuCount()
                / ev.shrinkToGpus());
        m = m.withShrink(ev.shrinkToGpus(), stretched);
      } else {
        m = m.withBoost(m.boost() + 1); // P6: compensation when it queues again
      }
      c.mark(id, m);
    } else {
      c.fold(l);
    }
    holdsProgress(c, id, type);
  }

  /** Holds waiting for {@code id} advance on {@code type}; a hold with nothing left resolves. */
  private void holdsProgress(Cycle c, String id, Event type) {
    for (Hold h : List.copyOf(c.cluster.holds().values())) {
      if (h.waitingFor().contains(id) && h.drainedBy(type)) {
        Hold rest = h.without(id);
        if (rest.waitingFor().isEmpty()) {
          pass.resolve(c, rest, type + " of " + id);
        } else {
          c.setHold(rest);
        }
      }
    }
  }

  /**
   * Frees the job's GPUs with a RELEASED decision. {@code ev}: the eviction it stops for — the
   * trace names the decision; GPUs of a starting reservation stay the service's (from its start a
   * reservation admits only the service).
   */
  static void release(Cycle c, String id, String why, Evicting ev) {
    Binding b = c.cluster.bindings().get(id);
    if (b == null) {
      return;
    }
    String rule = "ledger release";
    String where = String.format(Locale.ROOT, "%.2f", b.gpuShare()) + " GPU(s) back to the pool";
    if (ev != null && ev.trigger() == Trigger.RESERVATION_START) {
      var r = c.cluster.reservations().get(ev.reservationId());
      double kept = r == null || !r.activeAt(c.now) ? 0 : b.assignments().stream()
          .filter(g -> r.gpus().contains(g.gpu())).mapToDouble(GpuAssignment::share).sum();
      rule = "F2 reservation start";
      why += " (evicted by " + ev.decisionId() + ")";
      where = String.format(Locale.ROOT, "%.2f", kept) + " GPU(s) held for service "
          + ev.serviceId() + " (reservation " + ev.reservationId() + "), "
          + String.format(Locale.ROOT, "%.2f", b.gpuShare() - kept) + " back to the pool";
    } else if (ev != null && ev.trigger() == Trigger.IDLE_RECLAIM) {
      rule = "Q7 idle reclaim";
      why += " (reclaimed by " + ev.decisionId() + "; not queued again)";
    } else if (ev != null && ev.trigger() == Trigger.SHRINK) {
      rule = "Q7 shrink";
      why += " (shrunk by " + ev.decisionId() + " to " + ev.shrinkToGpus() + " GPU(s))";
    } else if (ev != null && ev.trigger() == Trigger.GUARANTEE_RECLAIM) {
      rule = "Q3 guarantee reclaim";
      why += " (borrowed GPUs reclaimed by " + ev.decisionId() + ")";
    }
    c.release(id);
    c.decide(id, Outcome.RELEASED, b.assignments(), null, false, 0,
        List.of(new TraceEntry(id, rule, "released", why + ": " + where)));
  }

  /** Forgets that {@code id} is being evicted; returns what it was evicted for, or null. */
  static Evicting stopEvicting(Cycle c, String id) {
    Evicting ev = c.evicting.get(id);
    if (ev != null) {
      c.evicting = c.evicting.remove(c.journal, id);
    }
    return ev;
  }

  // ------------------------------------------------------------------------------ hard split

  /** Topology-blind baseline: every node under this one switch. */
  static final String FLAT = "flat";
  /** Hard-split baseline: the model suffix of the inference partition's nodes. */
  static final String INFERENCE = "/inference";
  /** Hard-split baseline: the model suffix of every other node. */
  static final String OFFLINE = "/offline";

  /** Hard-split baseline: a node's model names its partition. */
  private NodeRecord partitioned(NodeRecord n) {
    Node x = n.node();
    String pool = policy.inferencePartition().contains(x.id()) ? INFERENCE : OFFLINE;
    return new NodeRecord(new Node(x.id(), x.gpuModel() + pool, x.gpuCount(), x.nvlinkIsland(),
        x.path()), n.status(), n.observedAt());
  }

}
