package io.tideline.core.preemption;

import io.tideline.core.model.WorkloadClass;
import io.tideline.core.preemption.PreemptionDecision.Outcome;
import io.tideline.core.preemption.TraceEntry.Result;
import java.time.Instant;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Decides whether a job with the right to preempt may evict others and which ones (W4, P1–P6).
 * The decision is pure: the same request, snapshot, probe answers and {@code now} give the same
 * decision, whatever the order of the snapshot.
 *
 * <p>Rules, in the order they are applied (cheapest first):
 * <ol>
 *   <li>W4: the preemptor needs the right to preempt, granted by quota and allowed to its class,
 *       its criticality or its tenant's business level.
 *   <li>Per candidate: never the preemptor itself; W1 never-interrupted classes; W4 preemptible;
 *       P3 protection (first 15 min after (re)start) and cooldown (30 min after a preemption);
 *       P2 preemptor score ≥ 1.5 × victim score; P5 no huge state, not near completion, and its
 *       own cost × margin ≤ gain (no set containing it could pass P5).
 *   <li>Victim set: the eligible candidates in (cost, score, job id) order, ordered lazily as far
 *       as the search reads ({@link #cheapestFirst}); the shortest
 *       prefix whose eviction makes the probe feasible (galloping then binary search: O(log k)
 *       probes for a prefix of k, instead of k); then pruned to an irreducible set, keeping cheap
 *       candidates and dropping ones the placement does not need (O(log k) probes per victim).
 *       With an {@link IncrementalProbe} the same set is found in one walk of O(k) single-job
 *       updates, each O(nodes the job spans), with no full probe at all.
 *   <li>P5: the set goes ahead only if gain ≥ total cost × margin.
 *   <li>P6: every victim gets a queue boost, an off-peak retry hint and a shared-pool fallback.
 * </ol>
 *
 * <p>The set is the cheapest the greedy finds, not a proven optimum (that is a knapsack problem);
 * every victim in it is necessary: without any one of them the preemptor does not fit.
 */
public final class PreemptionPlanner {

  /** Relative slack on the ≥ comparisons, so 3.3 / 2.2 counts as a ratio of 1.5. */
  private static final double TOLERANCE = 1e-9;

  private static final double SECONDS_PER_HOUR = 3600.0;

  /** Cost, then score, then job id: a total order, so ties never depend on snapshot order. */
  static final Comparator<Candidate> CHEAPEST_FIRST = (a, b) -> {
    int byCost = Double.compare(a.costGpuHours, b.costGpuHours);
    if (byCost != 0) {
      return byCost;
    }
    int byScore = Double.compare(a.score, b.score);
    return byScore != 0 ? byScore : a.job.jobId().compareTo(b.job.jobId());
  };

  /** A refused candidate's line beyond the detailed ones: its rule only, per rule. */
  private static final TraceEntry[] BRIEF = new TraceEntry[PreemptionRule.values().length];
  /** An eligible candidate not needed, beyond the detailed ones. */
  private static final TraceEntry BRIEF_SKIP =
      new TraceEntry("", PreemptionRule.VICTIM_SET, Result.SKIP, "");

  static {
    for (PreemptionRule r : PreemptionRule.values()) {
      BRIEF[r.ordinal()] = new TraceEntry("", r, Result.REFUSE, "");
    }
  }

  private final PreemptionConfig config;
  private final PreemptionScore score;
  private final MigrationCostModel costModel;
  private final PreemptionGain gain;
  private final VictimGuard guard;
  private final String thresholdText;
  private final String marginText;
  private final String maxStateText;
  private final String nearCompletionText;
  private final String[] neverInterruptedText;

  public PreemptionPlanner(PreemptionConfig config) {
    this.config = config;
    this.score = new PreemptionScore(config);
    this.costModel = new MigrationCostModel(config);
    this.gain = new PreemptionGain(config);
    this.guard = new VictimGuard(config);
    this.thresholdText = " < " + Numbers.d2(config.scoreRatioThreshold());
    this.marginText = " GPU-h × " + Numbers.d2(config.gainMargin()) + " > gain ";
    this.maxStateText = " GB > " + Numbers.d0(config.maxVictimStateGb()) + " GB";
    this.nearCompletionText = " s left < " + Numbers.d2(config.nearCompletionFactor()) + " × ";
    this.neverInterruptedText = new String[WorkloadClass.values().length];
    for (WorkloadClass wc : WorkloadClass.values()) {
      neverInterruptedText[wc.ordinal()] = wc + " is never interrupted";
    }
  }

  /**
   * Decides one preemption.
   *
   * @param preemptor the job asking for room
   * @param running the running jobs (the candidates), ids unique
   * @param probe placement's answer to "would the preemptor fit without these jobs?"
   * @param now decision time
   * @param nextTroughStart start of the next trough slot (F4), for the P6 retry hint; nullable
   */
  public PreemptionDecision decide(
      PreemptionRequest preemptor, List<RunningJob> running, FeasibilityProbe probe, Instant now,
      Instant nextTroughStart) {
    return decide(preemptor, running, probe, now, nextTroughStart, Integer.MAX_VALUE);
  }

  /**
   * {@link #decide(PreemptionRequest, List, FeasibilityProbe, Instant, Instant)} with the detail
   * of the trace bounded: the first {@code detailed} refused candidates and the first
   * {@code detailed} eligible candidates not needed (each in candidate order) get their line in
   * words; beyond that a candidate's line names only its rule and result (subject and detail
   * empty), which is all a capped trace keeps of it (the kernel counts such lines per rule). The
   * decision is the same; at 100,000 running jobs the words are most of its cost.
   */
  public PreemptionDecision decide(
      PreemptionRequest preemptor, List<RunningJob> running, FeasibilityProbe probe, Instant now,
      Instant nextTroughStart, int detailed) {
    String pid = preemptor.jobId();
    double preemptorScore = score.of(preemptor);
    double gainGpuHours = gain.gpuHours(preemptor);
    Verdict verdict = new Verdict(pid, preemptorScore, gainGpuHours, now);

    // 1. W4: may this job preempt at all?
    String noRight = missingRight(preemptor);
    if (noRight != null) {
      return verdict.refuse(PreemptionRule.W4_RIGHT_TO_PREEMPT, noRight);
    }
    verdict.head(PreemptionRule.W4_RIGHT_TO_PREEMPT, Result.PASS, rightReason(preemptor));
    verdict.head(PreemptionRule.P1_SCORE, Result.PASS, "score " + Numbers.d2(preemptorScore)
        + " = priority " + Numbers.d2(score.staticPriority(preemptor.workloadClass(),
            preemptor.critical()))
        + " × weight " + Numbers.d2(score.dynamicWeight(0, preemptor.gpuHoursConsumed())));
    verdict.head(PreemptionRule.P5_GAIN, Result.PASS, "gain " + Numbers.d2(gainGpuHours)
        + " GPU-h = " + preemptor.gpus() + " GPUs × " + Numbers.d2(
            Math.max(0, preemptor.expectedWaitSeconds()) / SECONDS_PER_HOUR)
        + " h wait avoided × class weight " + Numbers.d2(gain.classWeight(preemptor))
        + " + reservation " + Numbers.d2(Math.max(0, preemptor.reservationValueGpuHours())));

    // 2. No preemption when the preemptor already fits.
    if (probe.feasibleWithout(preemptor, Set.of())) {
      return verdict.refuse(PreemptionRule.FEASIBILITY, "fits without evicting anyone");
    }

    // 3. Filter the snapshot: cheap flag and time checks first, the cost model last.
    TraceEntry[] slots = new TraceEntry[running.size()];
    List<Candidate> eligible = new ArrayList<>();
    StringBuilder line = new StringBuilder(128); // one buffer for every trace line of the decision
    int pidHash = pid.hashCode();
    int refused = 0;
    for (int i = 0; i < running.size(); i++) {
      RunningJob job = running.get(i);
      Candidate c;
      String id = job.jobId();
      if (id.hashCode() == pidHash && id.equals(pid)) { // the hash is cached: no byte compare
        slots[i] = new TraceEntry(id, PreemptionRule.SELF, Result.REFUSE, "is the preemptor");
        c = null;
      } else if (refused < detailed) {
        c = screen(preemptorScore, gainGpuHours, job, i, now, slots, line);
        if (c == null) {
          refused++;
        }
      } else {
        c = screen(preemptorScore, gainGpuHours, job, i, now, slots, null);
      }
      if (c != null) {
        eligible.add(c);
      }
    }
    verdict.slots = slots;
    if (eligible.isEmpty()) {
      return verdict.refuse(PreemptionRule.VICTIM_SET,
          "no eligible victim among " + running.size() + " running jobs");
    }

    // 4. Cheapest first, job id last for a total order: ordered lazily, as far as the search
    //    reads (the victims are a short prefix of tens of thousands of candidates).
    List<Candidate> cheapestFirst = cheapestFirst(eligible);

    // 5. Shortest feasible prefix, then prune to an irreducible set.
    Search search = new Search(preemptor, probe, cheapestFirst);
    List<Candidate> chosen = search.irreducibleSet();
    if (chosen == null) {
      int n = 0;
      for (Candidate c : eligible) { // candidate order, as the trace lists them
        slots[c.slot()] = n++ < detailed ? c.entry(Result.SKIP, c.summary(line, "eligible (",
            "), but no set of eligible victims frees a placement")) : BRIEF_SKIP;
      }
      return verdict.refuse(PreemptionRule.FEASIBILITY, "no feasible placement even evicting all "
          + eligible.size() + " eligible candidates");
    }

    // 6. P5 on the set: gain must clearly exceed the total cost.
    double total = 0;
    for (Candidate c : chosen) {
      total += c.costGpuHours();
    }
    verdict.totalCost = total;
    boolean pays = atLeast(gainGpuHours, total * config.gainMargin());
    int skipped = 0;
    for (Candidate c : eligible) { // candidate order, as the trace lists them
      if (!c.taken) {
        slots[c.slot()] = skipped++ < detailed
            ? c.entry(Result.SKIP, c.summary(line, "eligible (", "), not needed")) : BRIEF_SKIP;
      } else if (pays) {
        slots[c.slot()] = c.entry(Result.TAKE, c.summary(line, "", ""));
      } else {
        slots[c.slot()] = c.entry(Result.SKIP, c.summary(line, "in the cheapest feasible set (",
            "), but the set does not pay"));
      }
    }
    String costVsGain = chosen.size() + " victims, cost " + Numbers.d2(total) + " GPU-h × "
        + Numbers.d2(config.gainMargin());
    if (!pays) {
      return verdict.refuse(PreemptionRule.P5_GAIN_VS_COST,
          costVsGain + " > gain " + Numbers.d2(gainGpuHours) + " GPU-h");
    }

    // 7. P6: compensate every victim.
    List<Victim> victims = new ArrayList<>(chosen.size());
    for (Candidate c : chosen) {
      // the full cost breakdown only for the victims (the screening kept just the totals)
      victims.add(new Victim(c.job().jobId(), c.job().tenant(), c.job().user(), c.score(),
          costModel.cost(c.job(), now), compensation(now, nextTroughStart)));
    }
    return verdict.preempt(victims, costVsGain + " ≤ gain " + Numbers.d2(gainGpuHours) + " GPU-h");
  }

  /**
   * Decides an idle reclaim (Q7): quota found {@code job} holding GPUs it does not use and
   * recommends taking them all back. There is no preemptor, so no score ratio (P2) and no gain to
   * weigh; what still protects a job does: W1 never-interrupted classes, W4 preemptibility
   * (declared at submission: quota's recommendation does not override it), P3 protection and
   * cooldown, P5 near completion. The cost (P4) is recorded so the owner's notice can show it.
   *
   * @param reclaimId id of the reclaim, the decision's subject (e.g. {@code idle-reclaim/job-7})
   * @param job the idle job, as running now
   * @param why quota's reason, quoted in the trace
   * @param now decision time (event time of quota's recommendation)
   * @param nextTroughStart start of the next trough slot, for the P6 retry hint; nullable
   */
  public PreemptionDecision reclaimIdle(String reclaimId, RunningJob job, String why,
      Instant now, Instant nextTroughStart) {
    return reclaim(reclaimId, job, PreemptionRule.Q7_IDLE_RECLAIM, why, now, nextTroughStart);
  }

  /**
   * Decides one reclaim quota asked for — of an idle job (Q7 RECLAIM), a shrink of an underused
   * one (Q7 SHRINK), or borrowed GPUs a queue below its guarantee needs back (Q3): quota names the
   * job, so there is no victim search and no score contest; the victim guards still apply (W1
   * never-interrupted classes, W4 preemptible, P3 protection and cooldown, P5 near completion).
   *
   * @param reclaimId the decision's subject
   * @param job the job quota names, as running now
   * @param rule which reclaim ({@link PreemptionRule#Q7_IDLE_RECLAIM}, {@link
   *     PreemptionRule#Q7_SHRINK}, {@link PreemptionRule#Q3_GUARANTEE_RECLAIM})
   * @param why quota's reason, quoted in the trace
   * @param now decision time
   * @param nextTroughStart start of the next trough slot, for the P6 retry hint; nullable
   */
  public PreemptionDecision reclaim(String reclaimId, RunningJob job, PreemptionRule rule,
      String why, Instant now, Instant nextTroughStart) {
    Verdict verdict = new Verdict(reclaimId, 0, 0, now);
    verdict.head(rule, Result.PASS, "quota asks to reclaim " + job.jobId() + ": " + why);
    String id = job.jobId();
    TraceEntry refusal = null;
    if (config.neverVictimClasses().contains(job.workloadClass())) {
      refusal = new TraceEntry(id, PreemptionRule.W1_NEVER_INTERRUPTED, Result.REFUSE,
          neverInterruptedText[job.workloadClass().ordinal()]);
    } else if (!job.preemptible()) {
      refusal = new TraceEntry(id, PreemptionRule.W4_PREEMPTIBLE, Result.REFUSE,
          "not preemptible (declared at submission; a reclaim does not override it)");
    } else if (guard.isProtected(job, now)) {
      refusal = new TraceEntry(id, PreemptionRule.P3_PROTECTION, Result.REFUSE,
          "protected until " + guard.protectedUntil(job));
    } else if (guard.inCooldown(job, now)) {
      refusal = new TraceEntry(id, PreemptionRule.P3_COOLDOWN, Result.REFUSE,
          "cooldown until " + guard.cooldownUntil(job.lastPreemptedAt()));
    }
    MigrationCost cost = costModel.cost(job, now);
    long remaining = job.expectedRemainingSeconds();
    if (refusal == null && remaining != RunningJob.UNKNOWN_REMAINING
        && remaining < config.nearCompletionFactor() * cost.wallSeconds()) {
      refusal = new TraceEntry(id, PreemptionRule.P5_NEAR_COMPLETION, Result.REFUSE,
          "near completion: " + remaining + " s left < " + Numbers.d2(config.nearCompletionFactor())
              + " × " + Numbers.d0(cost.wallSeconds()) + " s migration");
    }
    if (refusal != null) {
      verdict.slots = new TraceEntry[] {refusal};
      return verdict.refuse(rule, "not reclaimed: " + refusal.detail());
    }
    verdict.totalCost = cost.gpuHours();
    double score = this.score.of(job, now);
    verdict.slots = new TraceEntry[] {new TraceEntry(id, PreemptionRule.VICTIM_SET, Result.TAKE,
        rule.label() + "; score " + Numbers.d2(score) + ", cost " + Numbers.d2(cost.gpuHours())
            + " GPU-h")};
    return verdict.preempt(List.of(new Victim(id, job.tenant(), job.user(), score, cost,
            compensation(now, nextTroughStart))), rule,
        "reclaimed " + Numbers.d2(job.gpusHeld()) + " GPU(s) of " + id);
  }

  /**
   * {@code list} in {@link #CHEAPEST_FIRST} order, as a read-only view that orders only as far
   * as it is read: the search reads a prefix about as long as the victim set (galloping), so a
   * full sort of every eligible candidate — a quarter of a decision at 100,000 running jobs — is
   * wasted work. Mostly on primitives: each candidate is a long key (its cost rounded to a float,
   * then its position); float rounding is monotone, so a smaller float cost is a smaller cost,
   * and only candidates whose float costs tie are ordered with the full comparator. Reading
   * element {@code i} first selects (quickselect) the next block of smallest keys — at least
   * double the prefix ordered so far — and sorts only that block; a block always ends with a
   * complete run of equal float costs, so the exact comparator orders each run whole.
   */
  static List<Candidate> cheapestFirst(List<Candidate> list) {
    int n = list.size();
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      double cost = list.get(i).costGpuHours + 0.0; // -0.0 → 0.0
      if (!(cost >= 0) || Double.isInfinite(cost)) {
        List<Candidate> all = new ArrayList<>(list);
        all.sort(CHEAPEST_FIRST); // not a plain non-negative cost: the general path
        return all;
      }
      keys[i] = ((long) Float.floatToIntBits((float) cost) << 32) | i;
    }
    return new LazyOrder(list, keys);
  }

  /** See {@link #cheapestFirst}. */
  private static final class LazyOrder extends java.util.AbstractList<Candidate>
      implements java.util.RandomAccess {
    private static final int FIRST_BLOCK = 64;
    private final List<Candidate> list;
    private final long[] keys;
    private final Candidate[] ordered;
    private int ready;

    LazyOrder(List<Candidate> list, long[] keys) {
      this.list = list;
      this.keys = keys;
      this.ordered = new Candidate[keys.length];
    }

    @Override
    public Candidate get(int i) {
      java.util.Objects.checkIndex(i, keys.length);
      while (i >= ready) {
        extend(Math.max(i + 1, Math.max(FIRST_BLOCK, 2 * ready)));
      }
      return ordered[i];
    }

    @Override
    public int size() {
      return keys.length;
    }

    /** Orders at least the first {@code want} elements (keys[ready..] are the rest, unordered). */
    private void extend(int want) {
      int n = keys.length;
      int end = Math.min(n, want);
      if (end < n) {
        select(keys, ready, n - 1, end - 1);
        // the block ends with a whole run of its last float cost: pull in the rest of the run
        long last = keys[end - 1] >>> 32;
        for (int j = end; j < n; j++) {
          if ((keys[j] >>> 32) == last) {
            long t = keys[end];
            keys[end] = keys[j];
            keys[j] = t;
            end++;
          }
        }
      }
      java.util.Arrays.sort(keys, ready, end);
      for (int i = ready; i < end; i++) {
        ordered[i] = list.get((int) keys[i]);
      }
      for (int start = ready; start < end; ) {
        int stop = start + 1;
        while (stop < end && (keys[stop] >>> 32) == (keys[start] >>> 32)) {
          stop++;
        }
        if (stop - start > 1) {
          java.util.Arrays.sort(ordered, start, stop, CHEAPEST_FIRST);
        }
        start = stop;
      }
      ready = end;
    }

    /**
     * Quickselect: rearranges {@code a[lo..hi]} so that {@code a[k]} is the value it would have
     * sorted, nothing smaller after it and nothing larger before it (median-of-three pivots).
     */
    private static void select(long[] a, int lo, int hi, int k) {
      while (hi > lo) {
        int mid = (lo + hi) >>> 1;
        long x = a[lo];
        long y = a[mid];
        long z = a[hi];
        long pivot = x < y ? (y < z ? y : Math.max(x, z)) : (x < z ? x : Math.max(y, z));
        int i = lo;
        int j = hi;
        while (i <= j) {
          while (a[i] < pivot) {
            i++;
          }
          while (a[j] > pivot) {
            j--;
          }
          if (i <= j) {
            long t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
          }
        }
        if (k <= j) {
          hi = j;
        } else if (k >= i) {
          lo = i;
        } else {
          return;
        }
      }
    }
  }

  /** P6: the same compensation for every victim of one decision. */
  private Compensation compensation(Instant now, Instant nextTroughStart) {
    Instant cooldownUntil = now.plus(config.cooldown());
    Instant retry = nextTroughStart == null ? null
        : nextTroughStart.isBefore(cooldownUntil) ? cooldownUntil : nextTroughStart;
    return new Compensation(config.queueBoost(), cooldownUntil, retry,
        config.sharedPoolFallback());
  }

  /** W4 refusal reason, or {@code null} when the preemptor may preempt. */
  private String missingRight(PreemptionRequest p) {
    if (!p.preemptionRightGranted()) {
      return "right to preempt not granted by quota";
    }
    if (rightReason(p) == null) {
      return p.workloadClass() + " is not critical and neither its class nor tenant "
          + p.tenant() + " carries the right to preempt";
    }
    return null;
  }

  private String rightReason(PreemptionRequest p) {
    if (p.critical()) {
      return "critical job";
    }
    if (config.classesWithPreemptionRight().contains(p.workloadClass())) {
      return p.workloadClass() + " may preempt";
    }
    if (config.tenantsWithPreemptionRight().contains(p.tenant())) {
      return "tenant " + p.tenant() + " is a business level with the right to preempt";
    }
    return null;
  }

  /**
   * Applies the per-candidate rules in cost order of the check itself; records a refusal in
   * {@code slots[i]} and returns {@code null}, or returns the eligible candidate.
   */
  private Candidate screen(double preemptorScore, double gainGpuHours, RunningJob job, int i,
      Instant now, TraceEntry[] slots, StringBuilder line) {
    String id = job.jobId();
    boolean words = line != null;
    if (config.neverVictimClasses().contains(job.workloadClass())) {
      slots[i] = refusal(id, PreemptionRule.W1_NEVER_INTERRUPTED,
          words ? neverInterruptedText[job.workloadClass().ordinal()] : null);
      return null;
    }
    if (!job.preemptible()) {
      slots[i] = refusal(id, PreemptionRule.W4_PREEMPTIBLE, words ? "not preemptible" : null);
      return null;
    }
    if (guard.isProtected(job, now)) {
      slots[i] = refusal(id, PreemptionRule.P3_PROTECTION,
          words ? "protected until " + guard.protectedUntil(job) : null);
      return null;
    }
    if (guard.inCooldown(job, now)) {
      slots[i] = refusal(id, PreemptionRule.P3_COOLDOWN,
          words ? "cooldown until " + guard.cooldownUntil(job.lastPreemptedAt()) : null);
      return null;
    }
    double victimScore = score.of(job, now);
    double ratio = preemptorScore / victimScore;
    if (!atLeast(preemptorScore, config.scoreRatioThreshold() * victimScore)) {
      slots[i] = refusal(id, PreemptionRule.P2_THRESHOLD, words
          ? Numbers.appendD2(fresh(line).append("score ratio "), ratio).append(thresholdText)
              .toString() : null);
      return null;
    }
    if (job.checkpoint() != null && job.checkpoint().stateSizeGb() > config.maxVictimStateGb()) {
      slots[i] = refusal(id, PreemptionRule.P5_HUGE_STATE, words
          ? "state " + Numbers.d0(job.checkpoint().stateSizeGb()) + maxStateText : null);
      return null;
    }
    double wall = costModel.wallSeconds(job, now);
    long remaining = job.expectedRemainingSeconds();
    if (remaining != RunningJob.UNKNOWN_REMAINING
        && remaining < config.nearCompletionFactor() * wall) {
      String detail = null;
      if (words) {
        StringBuilder b = fresh(line).append("near completion: ");
        Numbers.appendLong(b, remaining).append(nearCompletionText);
        detail = Numbers.appendLong(b, Math.round(wall)).append(" s migration").toString();
      }
      slots[i] = refusal(id, PreemptionRule.P5_NEAR_COMPLETION, detail);
      return null;
    }
    double gpuHours = wall * job.gpusHeld() / SECONDS_PER_HOUR; // as MigrationCost.gpuHours()
    if (!atLeast(gainGpuHours, gpuHours * config.gainMargin())) {
      slots[i] = refusal(id, PreemptionRule.P5_GAIN_VS_COST, words
          ? Numbers.appendD2(Numbers.appendD2(fresh(line).append("cost "), gpuHours)
              .append(marginText), gainGpuHours).append(" GPU-h").toString() : null);
      return null;
    }
    return new Candidate(i, job, victimScore, ratio, gpuHours);
  }

  /** A candidate's refusal line; without {@code detail}, the brief one of its rule. */
  private static TraceEntry refusal(String id, PreemptionRule rule, String detail) {
    return detail == null ? BRIEF[rule.ordinal()]
        : new TraceEntry(id, rule, Result.REFUSE, detail);
  }

  /** The decision's line buffer, emptied. */
  private static StringBuilder fresh(StringBuilder line) {
    line.setLength(0);
    return line;
  }

  /** {@code a ≥ b}, forgiving floating-point noise relative to their size. */
  private static boolean atLeast(double a, double b) {
    return a >= b - TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
  }

  /** An eligible victim with its score and price; {@code taken} marks the chosen set. */
  static final class Candidate {
    private final int slot;
    private final RunningJob job;
    private final double score;
    private final double ratio;
    private final double costGpuHours;
    private boolean taken;

    Candidate(int slot, RunningJob job, double score, double ratio, double costGpuHours) {
      this.slot = slot;
      this.job = job;
      this.score = score;
      this.ratio = ratio;
      this.costGpuHours = costGpuHours;
    }

    int slot() {
      return slot;
    }

    RunningJob job() {
      return job;
    }

    double score() {
      return score;
    }

    double costGpuHours() {
      return costGpuHours;
    }

    /** {@code prefix + "score S, ratio R, cost C GPU-h" + suffix}, built in one buffer. */
    String summary(StringBuilder line, String prefix, String suffix) {
      StringBuilder b = fresh(line).append(prefix).append("score ");
      Numbers.appendD2(b, score).append(", ratio ");
      Numbers.appendD2(b, ratio).append(", cost ");
      return Numbers.appendD2(b, costGpuHours).append(" GPU-h").append(suffix).toString();
    }

    TraceEntry entry(Result result, String detail) {
      return new TraceEntry(job.jobId(), PreemptionRule.VICTIM_SET, result, detail);
    }
  }

  /**
   * The victim search over candidates sorted cheapest first. Relies on the probe's monotonicity:
   * if evicting a set frees a placement, evicting any superset does too.
   */
  private static final class Search {
    private final PreemptionRequest preemptor;
    private final FeasibilityProbe probe;
    private final List<Candidate> sorted;

    Search(PreemptionRequest preemptor, FeasibilityProbe probe, List<Candidate> sorted) {
      this.preemptor = preemptor;
      this.probe = probe;
      this.sorted = sorted;
    }

    /**
     * An irreducible feasible set, cheapest first, or {@code null} if even all candidates do not
     * free a placement. The empty set is known infeasible.
     */
    List<Candidate> irreducibleSet() {
      if (probe instanceof IncrementalProbe incremental) {
        return irreducibleSet(incremental.open(preemptor));
      }
      int n = sorted.size();
      List<Candidate> required = new ArrayList<>();
      // 1. Greedy in cost order: the shortest feasible prefix. Gallop 1, 2, 4 … so the probes
      //    stay as small as the answer, then binary-search between the last two sizes. If even
      //    the whole list is infeasible, no set is.
      int lo = 0;
      int hi = 1;
      while (!feasible(required, hi)) {
        if (hi == n) {
          return null;
        }
        lo = hi;
        hi = Math.min(n, hi * 2);
      }
      int shortest = shortestFeasiblePrefix(required, lo, hi);
      // 2. Prune: the last candidate of the shortest prefix is necessary. Among the cheaper ones,
      //    repeatedly find the shortest prefix that completes the required set; its last element
      //    is necessary too. Each kept victim is necessary: without it the rest lies inside an
      //    infeasible prefix.
      required.add(sorted.get(shortest - 1));
      int limit = shortest - 1;
      while (limit > 0 && !feasible(required, 0)) {
        int next = shortestFeasiblePrefix(required, 0, limit);
        required.add(sorted.get(next - 1));
        limit = next - 1;
      }
      required.sort(CHEAPEST_FIRST);
      required.forEach(c -> c.taken = true);
      return required;
    }

    /**
     * The same set as the prefix search, found in one walk with an incremental probe:
     * <ol>
     *   <li>evict candidates cheapest first until the preemptor fits: that is the shortest
     *       feasible prefix (none: {@code null});
     *   <li>its last candidate is necessary; put the others back one by one, most expensive
     *       first, and evict a candidate again only when the preemptor no longer fits without it.
     *       A candidate is kept exactly when the kept ones above it plus the prefix below it are
     *       infeasible — the prefix search's rule — so both paths keep the same victims, and
     *       every kept victim is necessary (monotonicity: later put-backs only shrink the set).
     * </ol>
     */
    private List<Candidate> irreducibleSet(IncrementalProbe.Session session) {
      int shortest = 0;
      for (Candidate c : sorted) {
        session.evict(c.job.jobId());
        shortest++;
        if (session.feasible()) {
          break;
        }
      }
      if (shortest == 0 || !session.feasible()) {
        return null;
      }
      List<Candidate> required = new ArrayList<>();
      required.add(sorted.get(shortest - 1));
      for (int j = shortest - 2; j >= 0; j--) {
        Candidate c = sorted.get(j);
        session.restore(c.job.jobId());
        if (!session.feasible()) {
          session.evict(c.job.jobId());
          required.add(c);
        }
      }
      required.sort(CHEAPEST_FIRST);
      required.forEach(c -> c.taken = true);
      return required;
    }

    /** Smallest k in (lo, hi] with required ∪ prefix(k) feasible; prefix(lo) infeasible. */
    private int shortestFeasiblePrefix(List<Candidate> required, int lo, int hi) {
      while (hi - lo > 1) {
        int mid = (lo + hi) >>> 1;
        if (feasible(required, mid)) {
          hi = mid;
        } else {
          lo = mid;
        }
      }
      return hi;
    }

    private boolean feasible(List<Candidate> required, int prefix) {
      return probe.feasibleWithout(preemptor, new EvictionSet(required, sorted, prefix));
    }
  }

  /**
   * The ids of {@code required} plus the first {@code prefix} sorted candidates, as a read-only
   * set view: a probe usually just iterates it, so building a hash set per probe would cost more
   * than the probe. The two parts are disjoint (required victims all lie beyond the prefix).
   * Iteration order is deterministic: required first, then the prefix cheapest first.
   */
  private static final class EvictionSet extends AbstractSet<String> {
    private final List<Candidate> required;
    private final List<Candidate> sorted;
    private final int prefix;
    private Set<String> index;

    EvictionSet(List<Candidate> required, List<Candidate> sorted, int prefix) {
      this.required = required;
      this.sorted = sorted;
      this.prefix = prefix;
    }

    @Override
    public Iterator<String> iterator() {
      return new Iterator<>() {
        private int i;

        @Override
        public boolean hasNext() {
          return i < size();
        }

        @Override
        public String next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int k = i++;
          return k < required.size()
              ? required.get(k).job().jobId() : sorted.get(k - required.size()).job().jobId();
        }
      };
    }

    @Override
    public int size() {
      return required.size() + prefix;
    }

    @Override
    public boolean contains(Object o) {
      if (index == null) {
        index = new HashSet<>(this);
      }
      return index.contains(o);
    }
  }

  /** Accumulates the preemptor's trace and builds the decision. */
  private final class Verdict {
    private final String preemptorId;
    private final double preemptorScore;
    private final double gainGpuHours;
    private final Instant now;
    private final List<TraceEntry> head = new ArrayList<>();
    private TraceEntry[] slots = new TraceEntry[0];
    private double totalCost;

    Verdict(String preemptorId, double preemptorScore, double gainGpuHours, Instant now) {
      this.preemptorId = preemptorId;
      this.preemptorScore = preemptorScore;
      this.gainGpuHours = gainGpuHours;
      this.now = now;
    }

    void head(PreemptionRule rule, Result result, String detail) {
      head.add(new TraceEntry(preemptorId, rule, result, detail));
    }

    PreemptionDecision refuse(PreemptionRule rule, String detail) {
      return build(Outcome.REFUSED, List.of(),
          new TraceEntry(preemptorId, rule, Result.REFUSE, detail));
    }

    PreemptionDecision preempt(List<Victim> victims, String detail) {
      return preempt(victims, PreemptionRule.P5_GAIN_VS_COST, detail);
    }

    PreemptionDecision preempt(List<Victim> victims, PreemptionRule rule, String detail) {
      return build(Outcome.PREEMPT, victims,
          new TraceEntry(preemptorId, rule, Result.PASS, detail));
    }

    private PreemptionDecision build(Outcome outcome, List<Victim> victims, TraceEntry last) {
      List<TraceEntry> trace = new ArrayList<>(head.size() + slots.length + 1);
      trace.addAll(head);
      for (TraceEntry e : slots) {
        if (e != null) {
          trace.add(e);
        }
      }
      trace.add(last);
      return new PreemptionDecision(outcome, preemptorId, preemptorScore, victims, totalCost,
          gainGpuHours, trace, config.policyVersion(), now);
    }
  }
}
