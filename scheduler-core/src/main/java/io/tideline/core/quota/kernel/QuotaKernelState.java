package io.tideline.core.quota.kernel;

import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Table;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.DecayedUsage;
import io.tideline.core.quota.OnlineFloors;
import io.tideline.core.quota.QuotaConfig;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.pcollections.TreePSet;

/**
 * The quota kernel's state: immutable, made of persistent {@link Table}s (each one store table of
 * the adapter, its entities Avro records under {@code io.tideline.state}), two small values (the
 * definition in force and the clock) and the {@link Inbox} of inputs waiting for a tick.
 *
 * <p>Everything else is <em>derived</em> and rebuilt by {@link #restore} from the tables exactly as
 * the running kernel holds it: the {@link QuotaLedger} (the allocations of the jobs table plus the
 * history table), the waiting and running sets (from the jobs' statuses) and the definition in
 * force with the Q5 floors applied (from the declared definition and the peaks table).
 */
public final class QuotaKernelState {

  /** Table of jobs, id = job id ({@link QuotaJob}). */
  public static final String JOBS = "jobs";
  /** Table of running jobs' utilisation samples, id = job id ({@link JobSamples}). */
  public static final String SAMPLES = "samples";
  /** Table of billing days, id = tenant/day ({@link BillingDay}). */
  public static final String BILLING = "billing";
  /** Table of each queue's decayed history of finished runs, id = queue path. */
  public static final String HISTORY = "history";
  /** Table of online services' historical peaks, id = service id (GPUs). */
  public static final String PEAKS = "peaks";
  /** Table of Q3 guarantee reclaims in flight, id = the guaranteed job ({@link PendingReclaim}). */
  public static final String RECLAIMS = "reclaims";
  /** The small values: ids {@value #DEFINITION} and {@value #CLOCK}. */
  public static final String META = "meta";
  /** {@link #META} id of the definition in force. */
  public static final String DEFINITION = "definition";
  /** {@link #META} id of the clock (last tick, next inbox sequence). */
  public static final String CLOCK = "clock";
  /** The inbox: ids are {@link #inboxId(long) sequence numbers}. */
  public static final String INBOX = "inbox";

  private final QuotaInput.Definition definition;
  private final QuotaDefinition inForce;
  private final Instant lastTick;
  private final Table<QuotaJob> jobs;
  private final Table<JobSamples> samples;
  private final Table<BillingDay> billing;
  private final Table<DecayedUsage> history;
  private final Table<Double> peaks;
  private final Table<PendingReclaim> reclaims;
  private final Inbox<QuotaInput.Buffered> inbox;
  private final QuotaLedger ledger;
  private final TreePSet<String> waiting;
  private final TreePSet<String> running;

  QuotaKernelState(QuotaInput.Definition definition, QuotaDefinition inForce, Instant lastTick,
      Table<QuotaJob> jobs, Table<JobSamples> samples, Table<BillingDay> billing,
      Table<DecayedUsage> history, Table<Double> peaks, Table<PendingReclaim> reclaims,
      Inbox<QuotaInput.Buffered> inbox, QuotaLedger ledger, TreePSet<String> waiting,
      TreePSet<String> running) {
    this.definition = definition;
    this.inForce = Objects.requireNonNull(inForce, "inForce");
    this.lastTick = lastTick;
    this.jobs = jobs;
    this.samples = samples;
    this.billing = billing;
    this.history = history;
    this.peaks = peaks;
    this.reclaims = reclaims;
    this.inbox = inbox;
    this.ledger = ledger;
    this.waiting = waiting;
    this.running = running;
  }

  /** The state of a kernel that has seen nothing. */
  public static QuotaKernelState empty(QuotaConfig quota) {
    return restore(quota, null, null, 0, Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
        Map.of(), Map.of());
  }

  /**
   * A state from its persisted parts (a restore): the derived ledger, sets and floors in force are
   * rebuilt from them.
   *
   * @param quota the Q4/Q5 numbers (half-life, online fraction) the derived parts need
   * @param definition the definition in force, or {@code null}
   * @param lastTick the last tick applied, or {@code null}
   * @param nextSeq the sequence the inbox's next arrival gets
   * @param inbox the waiting inputs by the sequence each was given on arrival
   */
  public static QuotaKernelState restore(QuotaConfig quota, QuotaInput.Definition definition,
      Instant lastTick, long nextSeq, Map<String, QuotaJob> jobs, Map<String, JobSamples> samples,
      Map<String, BillingDay> billing, Map<String, DecayedUsage> history,
      Map<String, Double> peaks, Map<String, PendingReclaim> reclaims,
      Map<Long, QuotaInput.Buffered> inbox) {
    Inbox<QuotaInput.Buffered> in = Inbox.startingAt(nextSeq);
    for (Map.Entry<Long, QuotaInput.Buffered> e : new java.util.TreeMap<>(inbox).entrySet()) {
      in = in.restore(e.getKey(), e.getValue());
    }
    Table<QuotaJob> jobTable = Table.of(JOBS, jobs);
    List<Allocation> allocations = new ArrayList<>();
    TreePSet<String> waiting = TreePSet.empty();
    TreePSet<String> running = TreePSet.empty();
    for (QuotaJob j : jobTable.values()) {
      if (j.allocation() != null) {
        allocations.add(j.allocation());
      }
      if (j.status() == QuotaJob.Status.WAITING) {
        waiting = waiting.plus(j.id());
      } else if (j.status() == QuotaJob.Status.RUNNING) {
        running = running.plus(j.id());
      }
    }
    double fleet = definition == null ? 0 : definition.fleetGpus();
    QuotaLedger ledger = QuotaLedger.restore(fleet, quota.fairShareHalfLife(), allocations,
        history);
    Table<Double> peakTable = Table.of(PEAKS, peaks);
    return new QuotaKernelState(definition, inForce(quota, definition, peakTable.asMap()),
        lastTick, jobTable, Table.of(SAMPLES, samples), Table.of(BILLING, billing),
        Table.of(HISTORY, history), peakTable, Table.of(RECLAIMS, reclaims), in, ledger, waiting,
        running);
  }

  /** The definition in force: the declared one with the online floors applied (Q5). */
  static QuotaDefinition inForce(QuotaConfig quota, QuotaInput.Definition d,
      Map<String, Double> peaks) {
    if (d == null) {
      return QuotaDefinition.of("none", List.of());
    }
    return new OnlineFloors(quota).apply(d.declared(), d.fleetGpus(), peaks).definition();
  }

  /**
   * The id of an inbox entry in the {@link #INBOX} table: its sequence, zero-padded to 20 ASCII
   * digits (what {@code String.format("%020d", seq)} gives; written out, as it runs for every
   * input: a sequence is never negative).
   */
  public static String inboxId(long seq) {
    if (seq < 0) {
      return String.format("%020d", seq);
    }
    String digits = Long.toString(seq);
    return "0".repeat(20 - digits.length()) + digits;
  }

  /** The sequence of an {@link #INBOX} id. */
  public static long inboxSeq(String id) {
    return Long.parseLong(id);
  }

  // ------------------------------------------------------------------ accessors

  /** The definition document in force (as declared), or {@code null} before any. */
  public QuotaInput.Definition definition() {
    return definition;
  }

  /** The definition in force with the Q5 floors applied. */
  public QuotaDefinition inForce() {
    return inForce;
  }

  /** The last tick applied, or {@code null}. */
  public Instant lastTick() {
    return lastTick;
  }

  /** The instant the state is valid at: the last tick, or the epoch before any. */
  public Instant asOf() {
    return lastTick == null ? Instant.EPOCH : lastTick;
  }

  public Table<QuotaJob> jobs() {
    return jobs;
  }

  public Table<JobSamples> samples() {
    return samples;
  }

  public Table<BillingDay> billing() {
    return billing;
  }

  public Table<DecayedUsage> history() {
    return history;
  }

  public Table<Double> peaks() {
    return peaks;
  }

  public Table<PendingReclaim> reclaims() {
    return reclaims;
  }

  public Inbox<QuotaInput.Buffered> inbox() {
    return inbox;
  }

  /** The ledger (derived). */
  public QuotaLedger ledger() {
    return ledger;
  }

  /** Jobs waiting for quota (derived), in id order. */
  public TreePSet<String> waiting() {
    return waiting;
  }

  /** Running jobs (derived), in id order. */
  public TreePSet<String> running() {
    return running;
  }

  /** Rules version / definition version. */
  public String policyVersion(String rulesVersion) {
    return rulesVersion + "/" + inForce.version();
  }

  // ------------------------------------------------------------------ equality (restore tests)

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof QuotaKernelState s)) {
      return false;
    }
    return Objects.equals(definition, s.definition) && Objects.equals(lastTick, s.lastTick)
        && jobs.asMap().equals(s.jobs.asMap()) && samples.asMap().equals(s.samples.asMap())
        && billing.asMap().equals(s.billing.asMap()) && history.asMap().equals(s.history.asMap())
        && peaks.asMap().equals(s.peaks.asMap()) && reclaims.asMap().equals(s.reclaims.asMap())
        && inbox.nextSeq() == s.inbox.nextSeq() && inbox.entries().equals(s.inbox.entries())
        && ledger.equals(s.ledger) && waiting.equals(s.waiting) && running.equals(s.running)
        && inForce.queues().equals(s.inForce.queues())
        && inForce.version().equals(s.inForce.version());
  }

  @Override
  public int hashCode() {
    return Objects.hash(lastTick, jobs.asMap(), inbox.nextSeq());
  }

  @Override
  public String toString() {
    return "QuotaKernelState[tick " + lastTick + ", definition "
        + (definition == null ? "none" : definition.version()) + ", " + jobs.size() + " jobs ("
        + waiting.size() + " waiting, " + running.size() + " running), " + reclaims.size()
        + " reclaims in flight, inbox " + inbox.size() + "/" + inbox.nextSeq() + ", " + ledger
        + "]";
  }
}
