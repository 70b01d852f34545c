package io.tideline.core.scheduling;

import io.tideline.core.cluster.Reservation;
import io.tideline.core.cluster.state.Binding;
import io.tideline.core.cluster.state.Hold;
import io.tideline.core.placement.PlacementDecision;
import io.tideline.core.placement.Placer;
import io.tideline.core.placement.QueuedJob;
import io.tideline.core.scheduling.PlacementEffect.EvictionKind;
import io.tideline.core.scheduling.PlacementEffect.Outcome;
import io.tideline.core.scheduling.PlacementInput.AnswerVictim;
import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer;
import io.tideline.core.scheduling.PlacementInput.PreemptionAnswer.Trigger;
import io.tideline.core.scheduling.PlacementInput.Reclaim;
import io.tideline.core.trace.TraceEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Applying preemption's answers: placement is the one applier of every eviction (ADR 0006), and
 * applies a plan only while what it assumed still holds — otherwise the plan is stale: not applied,
 * the reason in a QUEUED decision of its subject.
 * <ol>
 *   <li><b>UNPLACEABLE</b> (placement's own request): only the answer to the open request of a
 *       job that still waits; every victim must still run; the preemptor must fit once they are
 *       gone (re-checked on the current ledger). Then: every victim is evicted (PREEMPT), the GPUs
 *       the preemptor will get are held for it ({@link Hold.Kind#PREEMPT}) until every victim has
 *       stopped, HELD_FOR_PREEMPTOR. A refusal is remembered at its version: the job asks again
 *       only once the ledger moved.</li>
 *   <li><b>RESERVATION_START</b>: only the answer to the reservation's open request, while the
 *       reservation holds; each victim must still run on the allocation the decision saw and
 *       hold GPUs of the reservation. Evicted (PREEMPT); when it stops its reserved GPUs stay the
 *       service's.</li>
 *   <li><b>IDLE_RECLAIM</b> (quota's Q7 reclaim, decided by preemption): only a victim quota
 *       named in an open RECLAIM; evicted (RECLAIM), never queued again.</li>
 *   <li><b>SHRINK</b> (Q7): only a victim quota named in an open SHRINK to the very GPU count
 *       the answer shrinks it to; evicted (SHRINK, with the GPUs it restarts with); queued again
 *       with fewer GPUs and its expected run time stretched in proportion.</li>
 *   <li><b>GUARANTEE_RECLAIM</b> (Q3: borrowed GPUs go back to a queue below its guarantee):
 *       only victims quota named as borrowers in an open GUARANTEE; evicted (PREEMPT); queued
 *       again once quota decides on it afresh.</li>
 * </ol>
 * For 3–5 (ADR 0029) an eviction may only follow a reclaim quota named: quota's reclaims
 * ({@link PlacementInput.Reclaim}) fill the table of named jobs ({@link ReclaimNamed}); an entry
 * leaves it when its eviction is applied, when the job stops, and
 * {@link PlacementPolicy.ReclaimNaming#ttl} after quota named it. Quota's reclaim and
 * preemption's answer travel on different topics, so the answer may come first: an answer with a
 * victim no open reclaim names (checked after staleness: a stale answer is refused at once) is
 * <em>parked</em> and re-checked at every tick (after the tick's
 * inputs), applied once every victim is named, refused — "not named by quota's reclaim", counted
 * {@code unnamed} — once the tick reaches its decision time plus
 * {@link PlacementPolicy.ReclaimNaming#unnamedWait}. Cluster time only: the same inputs park,
 * apply and refuse alike on every run. A reclaim and an answer of the same instant need no wait
 * (the reclaim ranks first).
 * For 2–5 a victim is stale when it no longer runs, runs on an allocation bound after the
 * decision's ledger version, or is already being evicted.
 */
final class AnswerRules {

  private final PlacementPolicy policy;
  private final Placer placer;
  private final QueuePass pass;

  AnswerRules(PlacementPolicy policy, Placer placer, QueuePass pass) {
    this.policy = policy;
    this.placer = placer;
    this.pass = pass;
  }

  void apply(Cycle c, PreemptionAnswer a) {
    switch (a.trigger()) {
      case UNPLACEABLE -> unplaceable(c, a);
      case RESERVATION_START -> reservationStart(c, a);
      case IDLE_RECLAIM, SHRINK, GUARANTEE_RECLAIM -> reclaim(c, a);
    }
  }

  /** Rule 1. */
  private void unplaceable(Cycle c, PreemptionAnswer a) {
    String id = a.subject();
    PendingRequest p = c.pending.get(id);
    boolean matches = p != null && p.answers(a.requestId());
    if (!a.preempts()) {
      if (matches) {
        // refused at this version: ask again only once the ledger has changed
        c.pending = c.pending.put(c.journal, id, new PendingRequest(p.requestId(), c.version(),
            PendingRequest.Status.REFUSED, null));
      }
      c.count("preemption_decision", "refused");
      return;
    }
    Set<String> victims = victims(a);
    List<TraceEntry> trace = new ArrayList<>();
    String stale = null;
    QueuedJob q = matches ? pass.waiting(c, id) : null;
    if (!matches) {
      stale = "no open preemption request " + a.requestId() + " for " + id;
    } else if (q == null) {
      stale = "preemptor " + id + " is no longer waiting";
    } else {
      List<String> gone = victims.stream().filter(v -> !c.cluster.runs(v)).toList();
      if (!gone.isEmpty() || victims.isEmpty()) {
        stale = "victim(s) " + gone + " no longer running";
      }
    }
    PlacementDecision d = null;
    if (stale == null) {
      d = placer.decideIfReleased(c.now, c.snap(), q.job(), victims);
      if (a.ledgerVersion() != c.version()) {
        trace.add(new TraceEntry(id, "P ledger version", d.placed() ? "re-checked" : "stale",
            "plan made on v" + a.ledgerVersion() + ", ledger now v" + c.version()
                + (d.placed() ? "; the preemptor still fits once the victims are gone"
                : "; the preemptor would no longer fit")));
      }
      if (!d.placed()) {
        stale = "ledger moved on from v" + a.ledgerVersion() + " to v" + c.version()
            + ": the preemptor would not fit even without the victims (" + d.reason() + ")";
      }
    }
    if (stale != null) {
      c.count("preemption_decision", "stale");
      trace.add(new TraceEntry(a.decisionId(), "P re-check", "not applied", stale));
      if (matches) {
        c.pending = c.pending.remove(c.journal, id); // the next pass may ask again
      }
      if (c.cluster.knows(id) && !c.cluster.runs(id)) {
        c.queued(id, trace);
      }
      return;
    }
    trace.add(new TraceEntry(a.decisionId(), "P re-check", "applied", "victims " + victims
        + " still running; the preemptor fits once they stop"));
    trace.addAll(d.trace());
    c.setHold(new Hold(Hold.holdOf(id), Hold.Kind.PREEMPT, id, a.decisionId(), victims,
        d.assignments()));
    for (String v : victims) {
      evict(c, a, v, EvictionKind.PREEMPT, 0, "preempted for " + id + " (plan " + a.decisionId()
          + ", preemptor score " + String.format(Locale.ROOT, "%.2f", a.preemptorScore()) + ")",
          new Evicting(a.decisionId(), Trigger.UNPLACEABLE, "", "", 0));
    }
    c.pending = c.pending.remove(c.journal, id);
    c.count("preemption_decision", "applied");
    c.decide(id, Outcome.HELD_FOR_PREEMPTOR, d.assignments(), d.level(), d.crossDomain(),
        d.score(), trace);
  }

  /** Rule 2. */
  private void reservationStart(Cycle c, PreemptionAnswer a) {
    String key = a.subject();
    PendingRequest p = c.pending.get(key);
    boolean matches = p != null && p.answers(a.requestId());
    if (!a.preempts()) {
      if (matches) {
        c.pending = c.pending.put(c.journal, key, new PendingRequest(p.requestId(),
            c.version(), PendingRequest.Status.DONE, p.reservationId()));
      }
      c.count("preemption_decision", "refused");
      return;
    }
    Set<String> victims = victims(a);
    Reservation r = p == null ? null : c.cluster.reservations().get(p.reservationId());
    String stale;
    if (!matches) {
      stale = "no open reservation-start request " + a.requestId() + " for " + key;
    } else if (r == null || !r.activeAt(c.now)) {
      stale = "reservation " + p.reservationId() + " no longer holds GPUs";
    } else {
      stale = victimsStale(c, a, victims);
      for (String v : victims) {
        if (stale == null && c.cluster.bindings().get(v).assignments().stream()
            .noneMatch(g -> r.gpus().contains(g.gpu()))) {
          stale = "victim " + v + " holds none of reservation " + r.id() + "'s GPUs";
        }
      }
    }
    if (stale != null) {
      refuseStale(c, a, key, stale);
      if (matches) {
        c.pending = c.pending.remove(c.journal, key); // asked again about whoever holds them now
      }
      return;
    }
    for (String v : victims) {
      evict(c, a, v, EvictionKind.PREEMPT, 0, "preempted for reservation " + r.id() + " of "
          + r.serviceId() + " starting at " + r.startsAt() + " (decision " + a.decisionId()
          + ", preemptor score " + String.format(Locale.ROOT, "%.2f", a.preemptorScore()) + ")",
          new Evicting(a.decisionId(), Trigger.RESERVATION_START, r.id(), r.serviceId(), 0));
    }
    c.pending = c.pending.put(c.journal, key, new PendingRequest(p.requestId(), c.version(),
        PendingRequest.Status.DONE, p.reservationId()));
    c.count("preemption_decision", "applied");
  }

  /** Quota names jobs to reclaim (rules 3–5): a newer naming of a job replaces an older one. */
  void named(Cycle c, PlacementInput.Reclaim r) {
    for (String job : r.named()) {
      ReclaimNamed n = new ReclaimNamed(job, r.action(), r.reclaimId(),
          r.action() == Reclaim.Action.SHRINK ? r.recommendedGpus() : 0, r.decidedAt());
      ReclaimNamed old = c.named.get(n.key());
      if (old == null || !old.namedAt().isAfter(n.namedAt())) {
        c.named = c.named.put(c.journal, n.key(), n);
      }
    }
  }

  /** {@code jobId} stopped: whatever quota named it for is moot. */
  static void forget(Cycle c, String jobId) {
    for (Reclaim.Action k : Reclaim.Action.values()) {
      c.named = c.named.remove(c.journal, ReclaimNamed.key(k, jobId));
    }
  }

  /**
   * At every tick, after its inputs: namings past their TTL go; parked answers are applied once
   * named, refused once expired (see the class rules).
   */
  void recheck(Cycle c) {
    for (String key : List.copyOf(c.named.ids())) {
      if (!live(c, c.named.get(key))) {
        c.named = c.named.remove(c.journal, key);
      }
    }
    for (String id : List.copyOf(c.parked.ids())) {
      PreemptionAnswer a = c.parked.get(id);
      c.parked = c.parked.remove(c.journal, id);
      reclaim(c, a);
    }
  }

  private boolean live(Cycle c, ReclaimNamed n) {
    return n != null && n.namedAt().plus(policy.reclaimNaming().ttl()).isAfter(c.now);
  }

  /** The victims of {@code a} no open reclaim of quota names as it asks (see the class rules). */
  private List<String> unnamed(Cycle c, PreemptionAnswer a) {
    Reclaim.Action kind = switch (a.trigger()) {
      case SHRINK -> Reclaim.Action.SHRINK;
      case GUARANTEE_RECLAIM -> Reclaim.Action.GUARANTEE;
      default -> Reclaim.Action.RECLAIM;
    };
    List<String> out = new ArrayList<>();
    for (AnswerVictim v : a.victims()) {
      ReclaimNamed n = c.named.get(ReclaimNamed.key(kind, v.jobId()));
      if (!live(c, n) || (kind == Reclaim.Action.SHRINK && n.shrinkToGpus() != v.shrinkToGpus())) {
        out.add(v.jobId() + (kind == Reclaim.Action.SHRINK ? " (to " + v.shrinkToGpus()
            + " GPU(s)" + (live(c, n) ? "; quota named " + n.shrinkToGpus() : "") + ")" : ""));
      }
    }
    return out;
  }

  /** Rules 3–5. */
  private void reclaim(Cycle c, PreemptionAnswer a) {
    if (!a.preempts()) {
      c.count("preemption_decision", "refused");
      return;
    }
    Set<String> victims = victims(a);
    String stale = victimsStale(c, a, victims);
    if (stale != null) {
      refuseStale(c, a, a.subject(), stale);
      return;
    }
    List<String> unnamed = unnamed(c, a);
    if (!unnamed.isEmpty()) {
      java.time.Instant until = a.decidedAt().plus(policy.reclaimNaming().unnamedWait());
      if (until.isAfter(c.now)) {
        c.parked = c.parked.put(c.journal, a.decisionId(), a); // quota's reclaim may be on its way
        return;
      }
      c.count("preemption_decision", "unnamed");
      c.queued(a.subject(), List.of(new TraceEntry(a.decisionId(), "P re-check", "not applied",
          "victim(s) " + unnamed + " not named by quota's reclaim ("
          + a.trigger().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ") by " + until
          + ": placement evicts only the jobs quota named")));
      return;
    }
    for (AnswerVictim v : a.victims()) {
      switch (a.trigger()) {
        case IDLE_RECLAIM -> evict(c, a, v.jobId(), EvictionKind.RECLAIM, 0, "idle reclaim (Q7):"
            + " holds GPUs without using them (decision " + a.decisionId() + ")",
            new Evicting(a.decisionId(), Trigger.IDLE_RECLAIM, "", "", 0));
        case SHRINK -> {
          Binding b = c.cluster.bindings().get(v.jobId());
          int to = v.shrinkToGpus();
          if (to <= 0 || to >= Math.round(b.gpuShare())) {
            refuseStale(c, a, a.subject(), "shrink of " + v.jobId() + " to " + to
                + " GPU(s) does not shrink its " + String.format(Locale.ROOT, "%.2f",
                b.gpuShare()) + " GPU(s)");
            return;
          }
          evict(c, a, v.jobId(), EvictionKind.SHRINK, to, "shrunk (Q7): uses under half of its"
              + " GPUs; restarts from its checkpoint on " + to + " GPU(s) (decision "
              + a.decisionId() + ")", new Evicting(a.decisionId(), Trigger.SHRINK, "", "", to));
        }
        default -> evict(c, a, v.jobId(), EvictionKind.PREEMPT, 0, "borrowed GPUs reclaimed "
            + "for a queue below its guarantee (Q3, decision " + a.decisionId() + ")",
            new Evicting(a.decisionId(), Trigger.GUARANTEE_RECLAIM, "", "", 0));
      }
    }
    c.count("preemption_decision", "applied");
  }

  private static Set<String> victims(PreemptionAnswer a) {
    Set<String> v = new TreeSet<>();
    a.victims().forEach(x -> v.add(x.jobId()));
    return v;
  }

  /** Why the decision's victims are not as it assumed, or null (see the class rules). */
  private static String victimsStale(Cycle c, PreemptionAnswer a, Set<String> victims) {
    if (victims.isEmpty()) {
      return "no victims named";
    }
    List<String> gone = victims.stream().filter(v -> !c.cluster.runs(v)).toList();
    if (!gone.isEmpty()) {
      return "victim(s) " + gone + " no longer running";
    }
    for (String v : victims) {
      long bound = c.cluster.bindings().get(v).boundAt();
      if (bound > a.ledgerVersion()) {
        return "victim " + v + " runs on an allocation bound at v" + bound
            + ", after the decision's v" + a.ledgerVersion();
      }
      String by = c.evictionOf(v);
      if (by != null) {
        return "victim " + v + " is already being evicted (" + by + ")";
      }
    }
    return null;
  }

  private static void refuseStale(Cycle c, PreemptionAnswer a, String subject, String stale) {
    c.count("preemption_decision", "stale");
    c.queued(subject, List.of(new TraceEntry(a.decisionId(), "P re-check", "not applied",
        stale)));
  }

  private void evict(Cycle c, PreemptionAnswer a, String jobId, EvictionKind kind, int shrinkTo,
      String reason, Evicting ev) {
    long stretched = 0;
    var job = c.cluster.request(jobId);
    if (kind == EvictionKind.SHRINK && job != null && job.expectedDurationSeconds() > 0) {
      stretched = (long) Math.ceil(job.expectedDurationSeconds() * (double) job.gpuCount()
          / shrinkTo);
    }
    c.effects.add(new PlacementEffect.Evict(a.decisionId() + "/" + jobId, jobId, kind,
        a.decisionId(), true, policy.evictionGraceSeconds(), List.of(), shrinkTo, stretched,
        reason, c.now));
    switch (a.trigger()) {
      case SHRINK -> c.named = c.named.remove(c.journal,
          ReclaimNamed.key(Reclaim.Action.SHRINK, jobId));
      case IDLE_RECLAIM -> c.named = c.named.remove(c.journal,
          ReclaimNamed.key(Reclaim.Action.RECLAIM, jobId));
      case GUARANTEE_RECLAIM -> c.named = c.named.remove(c.journal,
          ReclaimNamed.key(Reclaim.Action.GUARANTEE, jobId));
      default -> { }
    }
    if (kind != EvictionKind.PREEMPT || a.trigger() != Trigger.UNPLACEABLE) {
      c.evicting = c.evicting.put(c.journal, jobId, ev);
    }
  }
}
