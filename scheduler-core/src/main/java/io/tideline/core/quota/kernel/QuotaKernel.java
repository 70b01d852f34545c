package io.tideline.core.quota.kernel;

import io.tideline.core.admission.Resubmission;
import io.tideline.core.kernel.Inbox;
import io.tideline.core.kernel.Journal;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Table;
import io.tideline.core.kernel.Tick;
import io.tideline.core.pricing.ChargeBasis;
import io.tideline.core.pricing.UsageMeter;
import io.tideline.core.pricing.UsageRecord;
import io.tideline.core.quota.AdmissionPass;
import io.tideline.core.quota.AdmissionVerdict;
import io.tideline.core.quota.Allocation;
import io.tideline.core.quota.DecayedUsage;
import io.tideline.core.quota.GuaranteeChange;
import io.tideline.core.quota.GuaranteeReview;
import io.tideline.core.quota.IdleReclaimer;
import io.tideline.core.quota.IdleRecommendation;
import io.tideline.core.quota.OnlineFloors;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.core.quota.QuotaNode;
import io.tideline.core.quota.UtilisationSample;
import io.tideline.core.quota.Verdict;
import io.tideline.core.quota.WaitingJob;
import io.tideline.core.trace.TraceEntry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.pcollections.TreePSet;

/**
 * The quota service's policy as one pure state machine (requirements Q1–Q7, W4, P3, B1; issue #14,
 * ADR 0008, ADR 0015, ADR 0016): {@code step(now, state, input) → (state, effects, changes)}. The
 * service, the in-process twin and the audit replay run this same code through the platform's
 * {@code QuotaHost}.
 *
 * <h2>The cycle, in the order it runs</h2>
 * <ol>
 *   <li><b>Only a tick decides.</b> Any other input is added to the state's {@link Inbox} and
 *       nothing else happens — unless its event time is more than
 *       {@link QuotaKernelConfig#maxAheadOfClock()} after the last tick: then it is refused
 *       ({@link QuotaEffect.InputRefused}, dead-lettered by the adapter) and never waits. A tick of
 *       another cluster, or one not after the last tick, changes nothing (the clock never goes
 *       back).</li>
 *   <li><b>Bootstrap.</b> At the first tick with no definition in force, the configured bootstrap
 *       definition comes into force.</li>
 *   <li><b>Apply the inputs timed strictly before the tick</b>, in the inbox's canonical order
 *       (event time, facts before requests, key, arrival):
 *     <ul>
 *       <li>a <em>definition</em> (Q2) comes into force unless it is the one in force (same version
 *           and text); the Q5 floors of the known peaks are applied to it; every queue's state is
 *           published with the change;</li>
 *       <li>a <em>submission</em> of a new job waits for admission; of a known id with the same
 *           content it is an idempotent repeat (ignored); with other content it is refused as a
 *           conflict, with the differing fields ({@link Resubmission});</li>
 *       <li>a <em>lifecycle</em> fact: STARTED/RESUMED of an admitted job starts its run (metered
 *           from the fact's time; fewer assigned GPUs than admitted shrink its allocation: a
 *           shrink applied); a start of a job quota holds waiting on an admitting last verdict
 *           (its admission withdrawn before it started, and placed anyway) is accounted again, and
 *           if it was withdrawn for a guaranteed job whose reclaim is in flight it joins that
 *           reclaim; PREEMPTED bills the run up to the fact, returns its GPUs and makes it wait
 *           again with its P3 cooldown from the fact's time; COMPLETED/FAILED bill and release it.
 *           A borrower of a reclaim in flight leaves the reclaim; the end of a guaranteed job
 *           drops its reclaim;</li>
 *       <li>a <em>peak</em> (Q5): the guarantee review names the online guarantees that moved
 *           (one {@code GUARANTEE_CHANGED} each, with the queue floor it moved), the floors in
 *           force are recomputed and the moved queues publish their state;</li>
 *       <li>a <em>sample</em> (Q7) of a running job is kept, one value per GPU and instant, for
 *           the idle window plus the largest tolerated gap.</li>
 *     </ul></li>
 *   <li><b>Meter (B1)</b> every running job not billed for a metering interval, up to the tick.</li>
 *   <li><b>Idle assessment (Q7)</b> of every running job that is no borrower of a reclaim in
 *       flight: SHRINK or RECLAIM is recommended on {@code quota.reclaims} once per outcome;
 *       quota changes nothing itself — preemption decides, placement enacts, quota learns the
 *       result from lifecycle (PREEMPTED, or a RESUMED with fewer GPUs).</li>
 *   <li><b>Re-request</b> each guarantee reclaim whose borrowers still run
 *       {@link QuotaKernelConfig#guaranteeReclaimRetry()} after its last request.</li>
 *   <li><b>Admission pass</b> (Q2–Q6, W4, P3) over the waiting jobs in fair-share order against
 *       the <em>capacity view</em>: the ledger without the borrowers of reclaims in flight (their
 *       GPUs are already the beneficiaries'). A guaranteed job whose floor is lent out is admitted
 *       against the borrowers the core names (Q3): the running ones stay in the ledger and are
 *       asked for with one {@link QuotaEffect.GuaranteeReclaimRequested}; those admitted but not
 *       started hold no GPU yet and are withdrawn at once (waiting again, no cooldown). A verdict
 *       is published when it is the job's first, its outcome or reason changed, or it admits the
 *       job. The unblock hint alone ("7.25 GPUs freed in the shared pool…") does not republish: it
 *       moves with every change of capacity, and republishing it would send every waiting job's
 *       verdict again on every placement and release (quadratic in the queue); it is refreshed
 *       whenever the verdict is published for one of the reasons above.</li>
 *   <li><b>Queue states</b>: every queue whose usage changed in the cycle, or whose floor a
 *       definition or peak moved, publishes its state once, as it stands at the tick.</li>
 * </ol>
 * Every effect of a tick carries the tick's time. Arithmetic of usage, fair share and billing is
 * exact (integer GPU-milliseconds of decayed usage, integer micro-GPU-seconds and millionths of
 * the currency in bills), so a restored state decides and publishes bit for bit as the running one.
 */
public final class QuotaKernel {

  private static final String VALIDATION = "VALIDATION";

  private final QuotaKernelConfig config;
  private final AdmissionPass pass;
  private final GuaranteeReview review;
  private final OnlineFloors floors;
  private final IdleReclaimer reclaimer;
  private final UsageMeter meter;

  public QuotaKernel(QuotaKernelConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.pass = new AdmissionPass(config.quota());
    this.review = new GuaranteeReview(config.quota());
    this.floors = new OnlineFloors(config.quota());
    this.reclaimer = new IdleReclaimer(config.idle());
    this.meter = new UsageMeter(config.pricing());
  }

  public QuotaKernelConfig config() {
    return config;
  }

  /** The state of a kernel that has seen nothing. */
  public QuotaKernelState initial() {
    return QuotaKernelState.empty(config.quota());
  }

  /**
   * One input. {@code now} is the adapter's notion of the present and is not used for decisions:
   * a tick decides at its own time, any other input only waits (see the class documentation).
   */
  public Step<QuotaKernelState, QuotaEffect> step(Instant now, QuotaKernelState state,
      QuotaInput input) {
    Journal journal = new Journal();
    if (input instanceof QuotaInput.Clock c) {
      return tick(state, c.tick(), journal);
    }
    QuotaInput.Buffered b = (QuotaInput.Buffered) input;
    Instant last = state.lastTick();
    if (last != null && b.at().isAfter(last.plus(config.maxAheadOfClock()))) {
      return new Step<>(state, List.of(new QuotaEffect.InputRefused(-1, b, VALIDATION,
          "event time " + b.at() + " is more than " + config.maxAheadOfClock()
              + " after the cluster clock (" + last + "): refused, it would wait for ever",
          last)), Set.of());
    }
    long seq = state.inbox().nextSeq();
    journal.touch(QuotaKernelState.INBOX, QuotaKernelState.inboxId(seq));
    journal.touch(QuotaKernelState.META, QuotaKernelState.CLOCK);
    QuotaKernelState next = new QuotaKernelState(state.definition(), state.inForce(), last,
        state.jobs(), state.samples(), state.billing(), state.history(), state.peaks(),
        state.reclaims(), state.inbox().add(b), state.ledger(), state.waiting(), state.running());
    return new Step<>(next, List.of(), journal.changes());
  }

  private Step<QuotaKernelState, QuotaEffect> tick(QuotaKernelState state, Tick tick,
      Journal journal) {
    if (!config.cluster().equals(tick.cluster())
        || (state.lastTick() != null && !tick.at().isAfter(state.lastTick()))) {
      return new Step<>(state, List.of(), Set.of());
    }
    Cycle c = new Cycle(state, tick.at(), journal);
    // 1. bootstrap; 2. the due inputs in canonical order; 3.–7. the cycle at the tick
    if (c.definition == null && config.bootstrap() != null) {
      c.applyDefinition(config.bootstrap());
    }
    Inbox.Drained<QuotaInput.Buffered> drained = state.inbox().drainBefore(tick.at());
    for (Inbox.Entry<QuotaInput.Buffered> e : drained.due()) {
      journal.touch(QuotaKernelState.INBOX, QuotaKernelState.inboxId(e.position().seq()));
      c.apply(e.position().seq(), e.input());
    }
    c.inbox = drained.rest();
    c.assessIdle(c.meterLongRuns());
    c.retryReclaims();
    c.admissionPass();
    c.publishStates();
    c.syncHistory();
    journal.touch(QuotaKernelState.META, QuotaKernelState.CLOCK);
    return new Step<>(c.state(), c.effects, journal.changes());
  }

  /** One tick's working copy of the state, and what it decided. */
  private final class Cycle {
    final Instant now;
    final Journal journal;
    final QuotaLedger ledgerAtStart;
    final List<QuotaEffect> effects = new ArrayList<>();
    /** Queues whose floors moved (definition, peak): their state is published at the end. */
    final TreeSet<String> floorsMoved = new TreeSet<>();
    QuotaInput.Definition definition;
    QuotaDefinition inForce;
    Table<QuotaJob> jobs;
    Table<JobSamples> samples;
    Table<BillingDay> billing;
    Table<DecayedUsage> history;
    Table<Double> peaks;
    Table<PendingReclaim> reclaims;
    Inbox<QuotaInput.Buffered> inbox;
    QuotaLedger ledger;
    TreePSet<String> waiting;
    TreePSet<String> running;

    Cycle(QuotaKernelState s, Instant now, Journal journal) {
      this.now = now;
      this.journal = journal;
      this.definition = s.definition();
      this.inForce = s.inForce();
      this.jobs = s.jobs();
      this.samples = s.samples();
      this.billing = s.billing();
      this.history = s.history();
      this.peaks = s.peaks();
      this.reclaims = s.reclaims();
      this.inbox = s.inbox();
      this.ledger = s.ledger();
      this.ledgerAtStart = s.ledger();
      this.waiting = s.waiting();
      this.running = s.running();
    }

    QuotaKernelState state() {
      return new QuotaKernelState(definition, inForce, now, jobs, samples, billing, history,
          peaks, reclaims, inbox, ledger, waiting, running);
    }

    String policyVersion() {
      return config.quota().rulesVersion() + "/" + inForce.version();
    }

    QuotaDefinition declared() {
      return definition == null ? QuotaDefinition.of("none", List.of()) : definition.declared();
    }

    void put(QuotaJob j) {
      jobs = jobs.put(journal, j.id(), j);
    }

    // ============================================================== inputs

    void apply(long seq, QuotaInput.Buffered in) {
      if (in instanceof QuotaInput.Definition d) {
        applyDefinition(d);
      } else if (in instanceof QuotaInput.Submission s) {
        submit(seq, s);
      } else if (in instanceof QuotaInput.Lifecycle l) {
        lifecycle(l);
      } else if (in instanceof QuotaInput.Peak p) {
        peak(p);
      } else if (in instanceof QuotaInput.Sample s) {
        sample(s);
      }
    }

    /** Q2: a definition comes into force (unless it is the one in force). */
    void applyDefinition(QuotaInput.Definition d) {
      if (d.sameDocument(definition)) {
        return; // a replay or a re-publication: nothing changes
      }
      String old = definition == null ? null : definition.version();
      definition = d;
      journal.touch(QuotaKernelState.META, QuotaKernelState.DEFINITION);
      ledger = ledger.withFleet(d.fleetGpus());
      OnlineFloors.Applied applied = floors.apply(d.declared(), d.fleetGpus(), peaks.asMap());
      inForce = applied.definition();
      effects.add(new QuotaEffect.DefinitionApplied(config.cluster(), old, d.version(),
          "definition " + d.version() + " in force" + (old == null ? "" : " (was " + old + ")")
              + ": " + inForce.nodes().size() + " nodes, " + inForce.queues().size()
              + " queues, fleet " + d.fleetGpus() + " GPUs" + appliedFloors(applied),
          d.source(), policyVersion(), now));
      inForce.queues().forEach(q -> floorsMoved.add(q.path()));
    }

    /** A submission: new → waiting; a repeat → ignored; a conflict → refused. */
    void submit(long seq, QuotaInput.Submission s) {
      String id = s.job().jobId();
      QuotaJob known = jobs.get(id);
      if (known != null) {
        if (Resubmission.classify(known.request(), s.job()) instanceof Resubmission.Conflict c) {
          effects.add(new QuotaEffect.InputRefused(seq, s, VALIDATION, c.reason(id), now));
        }
        return;
      }
      put(QuotaJob.waiting(s.job()));
      waiting = waiting.plus(id);
    }

    void lifecycle(QuotaInput.Lifecycle l) {
      QuotaJob j = jobs.get(l.jobId());
      if (j == null) {
        return; // not a job quota knows (submitted before this service, or refused)
      }
      String id = l.jobId();
      switch (l.kind()) {
        case STARTED, RESUMED -> start(j, l);
        case PREEMPTED -> {
          if (j.allocation() == null) {
            return; // waiting already (withdrawn, or a repeated fact)
          }
          j = meterUntil(j, l.at());
          ledger = ledger.preempt(id, l.at());
          put(j.preempted(l.at()));
          running = running.minus(id);
          waiting = waiting.plus(id);
          samples = samples.remove(journal, id);
          leaveReclaims(id);
          reclaims = reclaims.remove(journal, id); // a preempted beneficiary needs nothing now
        }
        case COMPLETED, FAILED -> {
          if (j.status() == QuotaJob.Status.DONE) {
            return;
          }
          j = meterUntil(j, l.at());
          ledger = ledger.release(id, l.at());
          put(j.stopped(QuotaJob.Status.DONE));
          running = running.minus(id);
          waiting = waiting.minus(id);
          samples = samples.remove(journal, id);
          leaveReclaims(id);
          reclaims = reclaims.remove(journal, id);
        }
      }
    }

    /** STARTED / RESUMED: the run starts; a shrink applied; an unexpected start accounted. */
    void start(QuotaJob j, QuotaInput.Lifecycle l) {
      String id = j.id();
      if (j.status() == QuotaJob.Status.WAITING && j.allocation() == null) {
        // placed although quota holds it waiting (its admission withdrawn, or a stale verdict):
        // it runs, so it is accounted again on the admission it had
        PendingReclaim.Withdrawn w = withdrawnEntry(id);
        AdmissionVerdict v = j.verdict();
        Allocation a = w != null
            ? new Allocation(id, w.queue(), w.guaranteedGpus(), w.borrowedGpus(), l.at())
            : j.admittedByVerdict()
                ? new Allocation(id, v.queue(), v.guaranteedGpus(), v.borrowedGpus(), l.at())
                : null;
        if (a == null) {
          return; // never admitted: nothing of quota's starts
        }
        ledger = ledger.admit(a);
        j = new QuotaJob(j.request(), QuotaJob.Status.ADMITTED, j.lastPreemptedAt(), v,
            a.borrowing() ? ChargeBasis.ON_DEMAND : ChargeBasis.RESERVED, null, a, null);
        waiting = waiting.minus(id);
        if (w != null) {
          put(j);
          rejoinReclaim(id);
        }
      }
      if (j.status() != QuotaJob.Status.ADMITTED) {
        return; // running already, or not admitted: nothing starts in quota
      }
      if (l.assignedGpus() > 0 && l.assignedGpus() < j.allocation().gpus()) {
        ledger = ledger.resize(id, l.assignedGpus(), l.at()); // Q7 shrink applied
      }
      put(j.started(l.at(), ledger.allocation(id).orElseThrow()));
      running = running.plus(id);
    }

    /** Q5: a new historical peak moves guarantees and the floors in force. */
    void peak(QuotaInput.Peak p) {
      String service = p.serviceId();
      double peak = p.historicalPeakGpus();
      if ("*".equals(service) || !(peak > 0) || Double.valueOf(peak).equals(peaks.get(service))) {
        return; // the fleet profile, no peak yet, or the same peak again
      }
      // 1. Which guarantees moved (core review), then the floors in force recomputed from them.
      List<GuaranteeChange> changes = review.onNewPeak(peaks.asMap(), service, peak, now);
      peaks = peaks.put(journal, service, peak);
      QuotaDefinition before = inForce;
      inForce = QuotaKernelState.inForce(config.quota(), definition, peaks.asMap());
      Map<String, OnlineFloors.FloorChange> moved = new TreeMap<>();
      OnlineFloors.changes(before, inForce).forEach(c -> moved.put(c.path(), c));
      // 2. One audit event per moved guarantee, naming the queue floor it moved.
      for (GuaranteeChange c : changes) {
        Optional<QuotaNode> queue = declared().queueServing(c.service());
        OnlineFloors.FloorChange floor = queue.map(q -> moved.get(q.path())).orElse(null);
        String applies;
        if (queue.isEmpty()) {
          applies = "; no queue serves " + c.service() + ": floors unchanged";
        } else if (floor == null) {
          applies = "; floor of " + queue.get().path() + " stays " + fmt(inForce.node(
              queue.get().path()).orElseThrow().guaranteedGpus());
        } else {
          applies = "; floor of " + floor.path() + " " + fmt(floor.oldFloorGpus()) + " → "
              + fmt(floor.newFloorGpus()) + " applied (locked)" + ancestors(moved, floor.path())
              + "; shared pool " + fmt(Math.max(0, ledger.fleetGpus() - inForce.queueFloorSum()))
              + " GPUs";
        }
        Double queueFloor = queue.map(q -> inForce.node(q.path()).orElseThrow()
            .guaranteedGpus()).orElse(null);
        effects.add(new QuotaEffect.GuaranteeChanged(c.service(), c.oldGuaranteeGpus(),
            c.newGuaranteeGpus(), Double.isNaN(c.oldPeakGpus()) ? null : c.oldPeakGpus(),
            Double.isNaN(c.newPeakGpus()) ? null : c.newPeakGpus(),
            "Q5 review: " + c.reason() + " (" + Math.round(
                config.quota().onlineGuaranteeFraction() * 100) + "% of the historical peak)"
                + applies, queue.map(QuotaNode::path).orElse(null),
            queue.isEmpty() ? null : floor == null ? queueFloor : floor.oldFloorGpus(),
            queueFloor, policyVersion(), now));
      }
      // 3. The queues whose floor moved publish their state.
      inForce.queues().stream().filter(q -> moved.containsKey(q.path()))
          .forEach(q -> floorsMoved.add(q.path()));
    }

    /** Q7: one GPU's utilisation at an instant, for a running job. */
    void sample(QuotaInput.Sample s) {
      QuotaJob j = jobs.get(s.jobId());
      if (j == null || j.status() != QuotaJob.Status.RUNNING) {
        return;
      }
      JobSamples js = Optional.ofNullable(samples.get(s.jobId()))
          .orElse(JobSamples.empty(s.jobId()));
      Instant keepFrom = now.minus(config.idle().window()).minus(config.idle().maxSampleGap());
      samples = samples.put(journal, s.jobId(), js.plus(new JobSamples.Point(s.at(), s.gpuId(),
          s.utilisation())).from(keepFrom));
    }

    // ============================================================== the cycle

    /**
     * B1: bill long runs at least every metering interval.
     *
     * @return the running jobs as they stand after it, in {@link #running} order (the idle
     *     assessment, which runs next, reads them from here instead of looking each up again)
     */
    List<QuotaJob> meterLongRuns() {
      List<QuotaJob> after = new ArrayList<>(running.size());
      for (String id : running) {
        QuotaJob j = jobs.get(id);
        if (j.meteredUntil() != null && Duration.between(j.meteredUntil(), now)
            .compareTo(config.meteringInterval()) >= 0) {
          j = meterUntil(j, now);
        }
        after.add(j);
      }
      return after;
    }

    /** Bills a running job's usage from where the last piece ended up to {@code until}. */
    QuotaJob meterUntil(QuotaJob j, Instant until) {
      if (j.meteredUntil() == null || !until.isAfter(j.meteredUntil()) || j.basis() == null) {
        return j;
      }
      String id = j.id();
      double gpus = j.allocation() != null ? j.allocation().gpus()
          : j.verdict().guaranteedGpus() + j.verdict().borrowedGpus();
      String model = j.request().allowedGpuModels().isEmpty() ? "any"
          : j.request().allowedGpuModels().get(0);
      String queue = j.verdict() == null || j.verdict().queue() == null ? ""
          : j.verdict().queue();
      long microGpus = Math.round(gpus * 1e6);
      Instant end = j.meteredUntil();
      for (UsageRecord u : meter.meter(j.request().tenant(), id, model, gpus, j.basis(),
          j.meteredUntil(), until, config.slots())) {
        effects.add(new QuotaEffect.UsageBilled(u.tenant(), queue, id, u.from(), u.to(),
            u.gpuSeconds(), u.gpuModel(), u.slotClass(), u.basis(), u.pricePerGpuHour(),
            u.amount(), config.currency(), now));
        String day = u.from().atOffset(ZoneOffset.UTC).toLocalDate().toString();
        String key = BillingDay.id(u.tenant(), day);
        BillingDay b = Optional.ofNullable(billing.get(key))
            .orElse(BillingDay.empty(u.tenant(), day, config.currency()));
        billing = billing.put(journal, key, b.plus(id, u.slotClass().name(),
            microGpus * Duration.between(u.from(), u.to()).toSeconds(),
            BillingDay.micros(u.amount())));
        end = u.to();
      }
      QuotaJob next = j.metered(end);
      put(next);
      return next;
    }

    /**
     * Q7: assess the utilisation window ending now of each running job.
     *
     * @param runningJobs the running jobs in {@link #running} order, as the jobs table holds them
     *     now ({@link #meterLongRuns}: nothing changes them in between, and this loop writes only
     *     the job it assesses)
     */
    void assessIdle(List<QuotaJob> runningJobs) {
      Set<String> leaving = borrowersInFlight();
      for (QuotaJob j : runningJobs) {
        String id = j.id();
        Allocation a = j.allocation();
        if (leaving.contains(id) || a == null || a.gpus() < 1) {
          continue;
        }
        int gpus = (int) Math.ceil(a.gpus() - 1e-6);
        JobSamples js = samples.get(id);
        List<UtilisationSample> points = js == null ? List.of() : js.perInstant();
        // most jobs are kept: their action alone decides, without the recommendation's trace
        if (reclaimer.action(gpus, points, now) == IdleRecommendation.Action.KEEP) {
          if (j.lastIdle() != null) {
            put(j.withLastIdle(null));
          }
          continue;
        }
        long expected = j.request().expectedDurationSeconds();
        Duration remaining = expected <= 0 ? null : Duration.ofSeconds(Math.max(0,
            expected - Duration.between(a.admittedAt(), now).toSeconds()));
        IdleRecommendation rec = reclaimer.assess(id, gpus, remaining, points, now);
        if (rec.action() == IdleRecommendation.Action.KEEP) {
          if (j.lastIdle() != null) {
            put(j.withLastIdle(null));
          }
          continue;
        }
        QuotaJob.IdleMark mark = new QuotaJob.IdleMark(rec.action(), rec.recommendedGpus());
        if (mark.equals(j.lastIdle())) {
          continue; // already recommended
        }
        effects.add(new QuotaEffect.IdleReclaimRecommended(id, j.request().tenant(), a.queue(),
            rec.action(), rec.currentGpus(), rec.recommendedGpus(), rec.peakUtilisation(),
            rec.etaBefore(), rec.etaAfter(), rec.reason(), policyVersion(), rec.trace(), now));
        put(j.withLastIdle(mark));
      }
    }

    /** Q3: re-request each reclaim whose borrowers still run after the retry interval. */
    void retryReclaims() {
      for (PendingReclaim p : List.copyOf(reclaims.values())) {
        if (p.borrowers().isEmpty()
            || now.isBefore(p.requestedAt().plus(config.guaranteeReclaimRetry()))) {
          continue;
        }
        PendingReclaim again = p.again(reclaimId(p.beneficiaryJobId()), now);
        reclaims = reclaims.put(journal, p.beneficiaryJobId(), again);
        request(again, List.of(new TraceEntry(p.beneficiaryJobId(), "Q3 reclaim for guarantee",
            "requested again", "attempt " + again.attempt() + ": " + String.join(", ",
                again.borrowers()) + " still running " + Duration.between(p.requestedAt(), now)
                + " after request " + p.reclaimId())));
      }
    }

    /**
     * Q2–Q6: serves the waiting jobs in fair-share order against the capacity view; the running
     * borrowers a guaranteed job needs are asked for, the admitted ones that did not start are
     * withdrawn.
     */
    void admissionPass() {
      if (waiting.isEmpty()) {
        return;
      }
      // 1. The capacity view: borrowers of reclaims in flight count as gone.
      QuotaLedger capacity = ledger;
      for (String b : borrowersInFlight()) {
        capacity = capacity.preempt(b, now);
      }
      List<WaitingJob> queue = new ArrayList<>();
      for (String id : waiting) {
        QuotaJob j = jobs.get(id);
        queue.add(new WaitingJob(j.request(), j.lastPreemptedAt()));
      }
      AdmissionPass.Result r = pass.run(queue, inForce, capacity, now);
      // 2. Record each verdict; admissions enter the ledger; reclaims go out.
      Map<String, AdmissionVerdict> before = new TreeMap<>();
      Map<String, AdmissionVerdict> decided = new LinkedHashMap<>();
      Map<String, List<TraceEntry>> extra = new TreeMap<>();
      TreeSet<String> admitted = new TreeSet<>();
      for (AdmissionVerdict v : r.verdicts()) {
        QuotaJob j = jobs.get(v.jobId());
        before.putIfAbsent(v.jobId(), j.verdict());
        QuotaJob.Status s = v.admitted() ? QuotaJob.Status.ADMITTED
            : v.verdict() == Verdict.REJECTED ? QuotaJob.Status.REJECTED : QuotaJob.Status.WAITING;
        Allocation a = v.admitted() ? v.allocation() : null;
        if (a != null) {
          ledger = ledger.admit(a);
          admitted.add(v.jobId());
          forgetWithdrawn(v.jobId());
        }
        put(j.withVerdict(v, s, basis(v), a));
        if (s != QuotaJob.Status.WAITING) {
          waiting = waiting.minus(v.jobId());
        }
        decided.put(v.jobId(), v);
        if (!v.reclaimJobIds().isEmpty()) {
          extra.put(v.jobId(), reclaimFor(v, before, decided, admitted));
        }
      }
      // 3. Publish what is new, changed or admits.
      for (AdmissionVerdict v : decided.values()) {
        AdmissionVerdict prev = before.get(v.jobId());
        if (prev == null || !sameOutcome(prev, v) || admitted.contains(v.jobId())) {
          effects.add(verdict(v, extra.getOrDefault(v.jobId(), List.of())));
        }
      }
    }

    /**
     * Q3: the borrowers named for guaranteed job {@code v}: the running ones are asked for (one
     * request), the admitted ones that did not start are withdrawn now. The trace lines returned go
     * on the guaranteed job's published verdict.
     */
    List<TraceEntry> reclaimFor(AdmissionVerdict v, Map<String, AdmissionVerdict> before,
        Map<String, AdmissionVerdict> decided, Set<String> admitted) {
      List<String> run = new ArrayList<>();
      List<PendingReclaim.Withdrawn> withdrawn = new ArrayList<>();
      for (String b : v.reclaimJobIds()) {
        QuotaJob j = jobs.get(b);
        if (j.status() == QuotaJob.Status.RUNNING) {
          run.add(b);
          continue;
        }
        // admitted, not started: it holds no GPU yet, so quota takes its admission back itself
        AdmissionVerdict back = new AdmissionVerdict(b, j.verdict().queue(), Verdict.QUEUED, 0, 0,
            List.of(), false, "admission withdrawn before it started: its borrowed GPUs went to"
                + " guaranteed job " + v.jobId() + " (Q3)",
            "GPUs freed in the shared pool (waiting queues are served in fair-share order)",
            List.of(new TraceEntry(b, "Q3 reclaim for guarantee", "withdrawn",
                "admitted on borrowed capacity at " + j.allocation().admittedAt()
                    + ", not started; its GPUs are " + v.jobId() + "'s guarantee")),
            policyVersion(), now);
        before.putIfAbsent(b, j.verdict());
        withdrawn.add(new PendingReclaim.Withdrawn(b, j.allocation().queue(),
            j.allocation().guaranteedGpus(), j.allocation().borrowedGpus()));
        ledger = ledger.preempt(b, now);
        put(j.withdrawn(back));
        waiting = waiting.plus(b);
        admitted.remove(b);
        decided.remove(b);
        decided.put(b, back);
      }
      List<TraceEntry> lines = new ArrayList<>();
      if (!withdrawn.isEmpty()) {
        lines.add(new TraceEntry(v.jobId(), "Q3 reclaim for guarantee", "withdrawn",
            "admitted borrowers not started yet, waiting again: " + String.join(", ",
                withdrawn.stream().map(PendingReclaim.Withdrawn::jobId).toList())));
      }
      if (!run.isEmpty() || !withdrawn.isEmpty()) {
        PendingReclaim p = new PendingReclaim(reclaimId(v.jobId()), v.jobId(), v.queue(),
            v.guaranteedGpus() + v.borrowedGpus(), run, withdrawn, 1, now, now);
        reclaims = reclaims.put(journal, v.jobId(), p);
        if (!run.isEmpty()) {
          lines.add(new TraceEntry(v.jobId(), "Q3 reclaim for guarantee", "requested",
              "running borrowers asked for on quota.reclaims as " + p.reclaimId() + ": "
                  + String.join(", ", run) + "; they hold their GPUs until PREEMPTED"));
          request(p, v.trace().stream().filter(t -> t.rule().equals("Q3 reclaim for guarantee"))
              .toList());
        }
      }
      return lines;
    }

    /** Publishes one guarantee reclaim request for {@code p}'s borrowers. */
    void request(PendingReclaim p, List<TraceEntry> trace) {
      QuotaJob beneficiary = jobs.get(p.beneficiaryJobId());
      List<QuotaEffect.Borrower> borrowers = new ArrayList<>();
      List<String> held = new ArrayList<>();
      double total = 0;
      for (String b : p.borrowers()) {
        Allocation a = ledger.allocation(b).orElseThrow();
        borrowers.add(new QuotaEffect.Borrower(b, a.queue(), a.gpus(), a.borrowedGpus()));
        held.add(b + " (" + a.queue() + ", " + fmt(a.gpus()) + " GPUs, " + fmt(a.borrowedGpus())
            + " borrowed)");
        total += a.gpus();
      }
      effects.add(new QuotaEffect.GuaranteeReclaimRequested(p.reclaimId(), p.beneficiaryJobId(),
          beneficiary.request().tenant(), p.queue(), p.gpus(), borrowers, p.attempt(),
          "Q3: guaranteed job " + p.beneficiaryJobId() + " (" + p.queue() + ", " + fmt(p.gpus())
              + " GPUs) was admitted on its floor, lent to borrowers: evict " + String.join(", ",
              held) + " — " + fmt(total) + " GPUs; until each is PREEMPTED it keeps its GPUs in"
              + " quota's ledger and they are counted once, as " + p.beneficiaryJobId() + "'s",
          policyVersion(), trace, now));
    }

    /** Queue states: changed usage or moved floors, once each, as they stand at the tick. */
    void publishStates() {
      for (QuotaNode q : inForce.queues()) {
        if (floorsMoved.contains(q.path())
            || !ledgerAtStart.usage(q.path()).equals(ledger.usage(q.path()))) {
          effects.add(QuotaViews.queueState(inForce, ledger, q, now, policyVersion()));
        }
      }
    }

    /** The ledger's history table follows the ledger (only changed queues are written). */
    void syncHistory() {
      for (Map.Entry<String, DecayedUsage> e : ledger.history().entrySet()) {
        history = history.put(journal, e.getKey(), e.getValue());
      }
    }

    // ============================================================== reclaims in flight

    Set<String> borrowersInFlight() {
      TreeSet<String> out = new TreeSet<>();
      reclaims.values().forEach(p -> out.addAll(p.borrowers()));
      return out;
    }

    /** {@code id} stopped (PREEMPTED, COMPLETED, FAILED): it leaves any reclaim naming it. */
    void leaveReclaims(String id) {
      for (PendingReclaim p : List.copyOf(reclaims.values())) {
        if (p.borrowers().contains(id) || p.withdrawn(id) != null) {
          PendingReclaim left = p.without(id);
          reclaims = left.borrowers().isEmpty() && left.withdrawn().isEmpty()
              ? reclaims.remove(journal, p.beneficiaryJobId())
              : reclaims.put(journal, p.beneficiaryJobId(), left);
        }
      }
    }

    /** A withdrawn borrower admitted again on its own: it no longer belongs to a reclaim. */
    void forgetWithdrawn(String id) {
      for (PendingReclaim p : List.copyOf(reclaims.values())) {
        if (p.withdrawn(id) != null) {
          PendingReclaim left = p.without(id);
          reclaims = left.borrowers().isEmpty() && left.withdrawn().isEmpty()
              ? reclaims.remove(journal, p.beneficiaryJobId())
              : reclaims.put(journal, p.beneficiaryJobId(), left);
        }
      }
    }

    /** A withdrawn borrower started anyway: it is asked for with its beneficiary's reclaim. */
    void rejoinReclaim(String id) {
      for (PendingReclaim p : List.copyOf(reclaims.values())) {
        if (p.withdrawn(id) != null) {
          PendingReclaim joined = p.rejoined(id).again(reclaimId(p.beneficiaryJobId()), now);
          reclaims = reclaims.put(journal, p.beneficiaryJobId(), joined);
          request(joined, List.of(new TraceEntry(id, "Q3 reclaim for guarantee", "started anyway",
              "withdrawn for " + p.beneficiaryJobId() + " but placed before it was: asked for")));
        }
      }
    }

    PendingReclaim.Withdrawn withdrawnEntry(String id) {
      for (PendingReclaim p : reclaims.values()) {
        if (p.withdrawn(id) != null) {
          return p.withdrawn(id);
        }
      }
      return null;
    }

    String reclaimId(String beneficiary) {
      return config.cluster() + "/guarantee/" + beneficiary + "/" + now.toEpochMilli();
    }

    // ============================================================== helpers

    QuotaEffect.VerdictIssued verdict(AdmissionVerdict v, List<TraceEntry> extra) {
      QuotaJob j = jobs.get(v.jobId());
      double gpus = v.admitted() ? v.guaranteedGpus() + v.borrowedGpus()
          : j.request().gpuDemand();
      boolean preemptible = v.admitted() ? v.preemptible() : j.request().preemptible();
      double fairShare = v.queue() == null ? 0
          : QuotaViews.hours(ledger.decayedGpuMillis(v.queue(), now));
      List<TraceEntry> trace = new ArrayList<>(v.trace());
      trace.addAll(extra);
      return new QuotaEffect.VerdictIssued(v.jobId(), j.request().tenant(),
          v.queue() == null ? "" : v.queue(), v.verdict(), gpus, preemptible,
          v.preemptionRightGranted(), v.reason(),
          v.unblockedBy() == null || v.unblockedBy().isEmpty() ? null : v.unblockedBy(),
          fairShare, v.policyVersion(), trace, now);
    }
  }

  /** B1 charge basis of an admitting verdict: reserved on a guarantee, on demand when shared. */
  static ChargeBasis basis(AdmissionVerdict v) {
    return v.verdict() == Verdict.GUARANTEED ? ChargeBasis.RESERVED
        : v.verdict() == Verdict.SHARED ? ChargeBasis.ON_DEMAND : null;
  }

  /** Same outcome and reason: no need to publish it again (the hint alone does not count). */
  static boolean sameOutcome(AdmissionVerdict a, AdmissionVerdict b) {
    return a.verdict() == b.verdict() && Objects.equals(a.reason(), b.reason());
  }

  private static String ancestors(Map<String, OnlineFloors.FloorChange> moved, String queue) {
    List<String> up = new ArrayList<>();
    moved.values().stream().filter(m -> queue.startsWith(m.path() + "/")).forEach(m -> up.add(
        m.path() + " " + fmt(m.oldFloorGpus()) + " → " + fmt(m.newFloorGpus())));
    return up.isEmpty() ? "" : " (ancestors grown to hold it: " + String.join(", ", up) + ")";
  }

  /** The floors a new definition gets from the peaks already known (Q5), for its audit event. */
  private static String appliedFloors(OnlineFloors.Applied applied) {
    List<String> q = applied.trace().stream().filter(t -> t.rule().equals("Q5 online floor"))
        .map(t -> t.subject() + " " + t.outcome()).toList();
    return q.isEmpty() ? "" : "; online floors from known peaks: " + String.join(", ", q);
  }

  static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
