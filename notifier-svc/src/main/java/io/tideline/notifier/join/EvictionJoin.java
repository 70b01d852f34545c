package io.tideline.notifier.join;

import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.NoticeJoin;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.Victim;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The join of applied evictions with the preemption decisions that ordered them (P7, design rule
 * 2: notices follow applied facts, never intentions). Pure: it is given records and the event
 * time, and answers what to notify and how its durable state changes; the engine publishes the
 * notices and writes the changes to {@code notices.joins}.
 *
 * <p>The rule:
 *
 * <ol>
 *   <li><b>Only an applied eviction is notified.</b> A {@code PREEMPT}, {@code RECLAIM} or
 *       {@code SHRINK} eviction on {@code evictions} yields exactly one notice; a {@code MIGRATE}
 *       yields none (a defragmentation move is not the owner's concern); a decision alone yields
 *       none, whatever it says.
 *   <li><b>A decision waits for its evictions.</b> A {@code PREEMPT} decision with victims waits,
 *       keyed by its id, until each victim's eviction has arrived or the event time reaches its
 *       {@code decidedAt} + {@code decisionHorizon}; then it is dropped without a notice (placement
 *       refused it as stale, or the victim was already gone). A refused decision never waits.
 *   <li><b>An eviction joins its waiting decision.</b> An eviction whose {@code decisionId} names a
 *       waiting decision that lists its job among the victims is notified at once,
 *       {@link Explained explained} by the decision and that victim's entry. If the decision does
 *       not list the job, the eviction is notified {@link Unexplained unexplained} at once.
 *   <li><b>An eviction waits for its decision.</b> An eviction read before its decision (they are
 *       on different topics and partitions) waits, keyed by its id, for the decision until the
 *       event time reaches its {@code issuedAt} + {@code evictionWait}; the decision arriving in
 *       time joins it as in 3; otherwise it is notified {@link Unexplained unexplained} (its own
 *       reason; an eviction without a preemption decision, e.g. quota's own, is still a fact the
 *       owner is told about).
 *   <li><b>Whichever order, once.</b> Each eviction leaves the join exactly once (explained or
 *       unexplained); re-reading a record after a restart recomputes the same outcome, and the
 *       engine drops the notice whose deterministic id is already published.
 * </ol>
 *
 * <p>Event time is the caller's: {@link #advance} expires what the given time has passed.
 * {@link #copy()} gives an independent copy, so a caller can keep the state as it was before a
 * batch whose writes fail.
 */
public final class EvictionJoin {

  /** What to tell an owner about one applied eviction. */
  public sealed interface Outcome permits Explained, Unexplained {
    /** The applied eviction. */
    Eviction eviction();
  }

  /**
   * Notify now, explained by the decision that ordered the eviction.
   *
   * @param eviction the applied eviction
   * @param decision the decision that ordered it
   * @param victim the decision's entry for the evicted job
   */
  public record Explained(Eviction eviction, PreemptionDecision decision, Victim victim)
      implements Outcome {}

  /**
   * Notify now from the eviction alone.
   *
   * @param eviction the applied eviction
   * @param why why no decision explains it (for logs and meters)
   */
  public record Unexplained(Eviction eviction, String why) implements Outcome {}

  /** A change to the durable join state ({@code notices.joins}). */
  public sealed interface Change permits Put, Remove {
    /** The entry's key. */
    String key();
  }

  /**
   * Write {@code entry} under {@code key}.
   *
   * @param key {@code decision/<decisionId>} or {@code eviction/<evictionId>}
   * @param entry the waiting half
   */
  public record Put(String key, NoticeJoin entry) implements Change {}

  /**
   * End the wait of {@code key} (a tombstone).
   *
   * @param key the entry's key
   */
  public record Remove(String key) implements Change {}

  /**
   * What one input did.
   *
   * @param outcomes the evictions to notify, in order
   * @param changes the state changes, in order
   * @param expiredDecisions ids of decisions dropped without a notice (rule 2)
   */
  public record Step(List<Outcome> outcomes, List<Change> changes,
      List<String> expiredDecisions) {

    static final Step NONE = new Step(List.of(), List.of(), List.of());

    /** Whether the step did nothing. */
    public boolean isEmpty() {
      return outcomes.isEmpty() && changes.isEmpty() && expiredDecisions.isEmpty();
    }
  }

  static final String DECISION = "decision/";
  static final String EVICTION = "eviction/";

  private final Duration decisionHorizon;
  private final Duration evictionWait;
  /** Waiting decisions by decision id: the decision and its victims applied so far. */
  private final TreeMap<String, NoticeJoin> decisions = new TreeMap<>();
  /** Waiting evictions by eviction id. */
  private final TreeMap<String, Eviction> evictions = new TreeMap<>();
  /** Waiting eviction ids by the decision id they wait for. */
  private final Map<String, TreeSet<String>> byDecision = new HashMap<>();
  /** No wait ends before this (a lower bound): {@link #advance} looks no further until then. */
  private Instant nextDeadline = Instant.MAX;

  /**
   * A join with nothing waiting.
   *
   * @param decisionHorizon how long after its {@code decidedAt} a decision waits for evictions
   * @param evictionWait how long after its {@code issuedAt} an eviction waits for its decision
   */
  public EvictionJoin(Duration decisionHorizon, Duration evictionWait) {
    if (decisionHorizon.isNegative() || evictionWait.isNegative()) {
      throw new IllegalArgumentException("join waits must not be negative: decision horizon "
          + decisionHorizon + ", eviction wait " + evictionWait);
    }
    this.decisionHorizon = decisionHorizon;
    this.evictionWait = evictionWait;
  }

  /** An independent copy of this join's state. */
  public EvictionJoin copy() {
    EvictionJoin c = new EvictionJoin(decisionHorizon, evictionWait);
    c.decisions.putAll(decisions); // entries are replaced, never changed in place
    c.evictions.putAll(evictions);
    byDecision.forEach((k, v) -> c.byDecision.put(k, new TreeSet<>(v)));
    c.nextDeadline = nextDeadline;
    return c;
  }

  /** The durable key of a waiting decision. */
  public static String decisionKey(String decisionId) {
    return DECISION + decisionId;
  }

  /** The durable key of a waiting eviction. */
  public static String evictionKey(Eviction e) {
    return EVICTION + e.getEvictionId();
  }

  /** Rules 2 and 3: a decision joins the evictions waiting for it, then waits for the rest. */
  public Step decision(PreemptionDecision d) {
    if (d.getOutcome() != PreemptionOutcome.PREEMPT || d.getVictims().isEmpty()) {
      return Step.NONE;
    }
    String id = d.getDecisionId();
    NoticeJoin known = decisions.get(id);
    Set<String> applied = new TreeSet<>(known == null ? List.of() : known.getAppliedVictims());
    List<Outcome> notify = new ArrayList<>();
    List<Change> changes = new ArrayList<>();
    // 1. The evictions that arrived first.
    TreeSet<String> waiting = byDecision.remove(id);
    for (String evictionId : waiting == null ? new TreeSet<String>() : waiting) {
      Eviction e = evictions.remove(evictionId);
      changes.add(new Remove(EVICTION + evictionId));
      Victim v = victim(d, e.getJobId());
      if (v == null) {
        notify.add(new Unexplained(e, "decision " + id + " does not name " + e.getJobId()));
      } else {
        notify.add(new Explained(e, d, v));
        applied.add(e.getJobId());
      }
    }
    // 2. Wait for the others, unless every victim is applied already.
    Change kept = keep(d, applied, known != null);
    if (kept != null) {
      changes.add(kept);
    }
    return new Step(notify, changes, List.of());
  }

  /** Rules 1, 3 and 4: an applied eviction joins its waiting decision, or waits for it. */
  public Step eviction(Eviction e) {
    if (e.getKind() == EvictionKind.MIGRATE) {
      return Step.NONE;
    }
    NoticeJoin waiting = decisions.get(e.getDecisionId());
    if (waiting == null) {
      evictions.put(e.getEvictionId(), e);
      waitUntil(deadline(e));
      byDecision.computeIfAbsent(e.getDecisionId(), k -> new TreeSet<>()).add(e.getEvictionId());
      return new Step(List.of(), List.of(new Put(evictionKey(e),
          NoticeJoin.newBuilder().setEviction(e).build())), List.of());
    }
    PreemptionDecision d = waiting.getDecision();
    Victim v = victim(d, e.getJobId());
    if (v == null) {
      return new Step(List.of(new Unexplained(e, "decision " + d.getDecisionId()
          + " does not name " + e.getJobId())), List.of(), List.of());
    }
    Set<String> applied = new TreeSet<>(waiting.getAppliedVictims());
    applied.add(e.getJobId());
    return new Step(List.of(new Explained(e, d, v)), List.of(keep(d, applied, true)),
        List.of());
  }

  /**
   * Rules 2 and 4 at event time {@code now}: drops the decisions whose horizon it reaches
   * (without a notice) and notifies the evictions whose wait it reaches (unexplained).
   */
  public Step advance(Instant now) {
    if (now.isBefore(nextDeadline)) {
      return Step.NONE;
    }
    List<Change> changes = new ArrayList<>();
    List<String> expired = new ArrayList<>();
    for (var it = decisions.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!now.isBefore(deadline(entry.getValue().getDecision()))) {
        it.remove();
        changes.add(new Remove(decisionKey(entry.getKey())));
        expired.add(entry.getKey());
      }
    }
    List<Eviction> due = evictions.values().stream()
        .filter(e -> !now.isBefore(deadline(e)))
        .sorted(Comparator.comparing(Eviction::getIssuedAt).thenComparing(Eviction::getEvictionId))
        .toList();
    List<Outcome> notify = new ArrayList<>();
    for (Eviction e : due) {
      forgetEviction(e.getEvictionId());
      changes.add(new Remove(evictionKey(e)));
      notify.add(new Unexplained(e, "no decision " + e.getDecisionId() + " within "
          + evictionWait + " of the eviction"));
    }
    nextDeadline = Instant.MAX;
    decisions.values().forEach(d -> waitUntil(deadline(d.getDecision())));
    evictions.values().forEach(e -> waitUntil(deadline(e)));
    return notify.isEmpty() && changes.isEmpty() ? Step.NONE
        : new Step(notify, changes, expired);
  }

  /**
   * Restores one entry read back from {@code notices.joins} at start.
   *
   * @return why the entry cannot be used, or null when it was restored
   */
  public String restore(String key, NoticeJoin entry) {
    boolean isDecision = entry.getDecision() != null;
    if (isDecision == (entry.getEviction() != null)) {
      return "a join entry holds exactly one of decision and eviction (key " + key + ")";
    }
    if (isDecision) {
      String id = entry.getDecision().getDecisionId();
      if (!decisionKey(id).equals(key)) {
        return "entry of decision " + id + " under key " + key;
      }
      decisions.put(id, entry);
      waitUntil(deadline(entry.getDecision()));
      return null;
    }
    Eviction e = entry.getEviction();
    if (!evictionKey(e).equals(key)) {
      return "entry of eviction " + e.getEvictionId() + " under key " + key;
    }
    if (e.getKind() == EvictionKind.MIGRATE) {
      return "eviction " + e.getEvictionId() + " is a MIGRATE: nothing to notify";
    }
    forgetEviction(e.getEvictionId());
    evictions.put(e.getEvictionId(), e);
    byDecision.computeIfAbsent(e.getDecisionId(), k -> new TreeSet<>()).add(e.getEvictionId());
    waitUntil(deadline(e));
    return null;
  }

  /** Forgets the entry of {@code key} (a tombstone read back at start). */
  public void forget(String key) {
    if (key.startsWith(DECISION)) {
      decisions.remove(key.substring(DECISION.length()));
    } else if (key.startsWith(EVICTION)) {
      forgetEviction(key.substring(EVICTION.length()));
    }
  }

  /** Whether decision {@code decisionId} waits for evictions. */
  public boolean waitsForEvictionsOf(String decisionId) {
    return decisions.containsKey(decisionId);
  }

  /** Whether eviction {@code evictionId} waits for its decision. */
  public boolean waitsForDecisionOf(String evictionId) {
    return evictions.containsKey(evictionId);
  }

  /** Ids of the decisions waiting. */
  public Set<String> waitingDecisionIds() {
    return Set.copyOf(decisions.keySet());
  }

  /** Ids of the evictions waiting. */
  public Set<String> waitingEvictionIds() {
    return Set.copyOf(evictions.keySet());
  }

  /** Decisions waiting. */
  public int decisionsWaiting() {
    return decisions.size();
  }

  /** Evictions waiting. */
  public int evictionsWaiting() {
    return evictions.size();
  }

  /**
   * The change that keeps {@code d} waiting with {@code applied}, or ends its wait when every
   * victim is applied (null when it never waited: nothing to end).
   */
  private Change keep(PreemptionDecision d, Set<String> applied, boolean waited) {
    String id = d.getDecisionId();
    boolean all = d.getVictims().stream().allMatch(v -> applied.contains(v.getJobId()));
    if (all) {
      decisions.remove(id);
      return waited ? new Remove(decisionKey(id)) : null;
    }
    NoticeJoin entry = NoticeJoin.newBuilder().setDecision(d)
        .setAppliedVictims(List.copyOf(applied)).build();
    decisions.put(id, entry);
    waitUntil(deadline(d));
    return new Put(decisionKey(id), entry);
  }

  private Instant deadline(PreemptionDecision d) {
    return d.getDecidedAt().plus(decisionHorizon);
  }

  private Instant deadline(Eviction e) {
    return e.getIssuedAt().plus(evictionWait);
  }

  private void waitUntil(Instant deadline) {
    if (deadline.isBefore(nextDeadline)) {
      nextDeadline = deadline;
    }
  }

  private void forgetEviction(String evictionId) {
    Eviction e = evictions.remove(evictionId);
    if (e != null) {
      TreeSet<String> ids = byDecision.get(e.getDecisionId());
      if (ids != null) {
        ids.remove(evictionId);
        if (ids.isEmpty()) {
          byDecision.remove(e.getDecisionId());
        }
      }
    }
  }

  private static Victim victim(PreemptionDecision d, String jobId) {
    for (Victim v : d.getVictims()) {
      if (v.getJobId().equals(jobId)) {
        return v;
      }
    }
    return null;
  }
}
