package io.tideline.simulator;

/**
 * The measured outcome of one policy over one run: every figure of the report (F, P, T, B
 * results), plus the counters behind them. Definitions are in {@link Report}.
 *
 * @param policy policy name
 * @param onlineScaleUpWaitMedianSeconds F: median wait of an online scale-up instance
 * @param onlineScaleUpWaitP95Seconds F: 95th percentile of the same waits (the median hides the
 *     scale-ups that found no room)
 * @param nightPoolOccupancy F: mean shared-pool occupancy in the night window
 * @param troughUtilisation F: mean GPU allocation rate in trough slots
 * @param preemptionsPerJobDay P: evictions per offline job-day running
 * @param ineffectivePreemptionShare P: share of preemption decisions that were ineffective
 * @param effectiveComputeShare P: useful GPU-time over allocated GPU-time
 * @param bigJobQueueMedianMinutes T: median first-start wait of jobs of 8 GPUs or more
 * @param allocationRate T: mean allocated share of the fleet
 * @param crossDomainShare T: share of multi-node placements spanning access-switch domains
 * @param crossDomainShareAll T: cross-domain placements ÷ all offline placements (single-node
 *     placements never cross)
 * @param unitCost B: priced fleet cost per useful GPU-hour
 * @param jctP50Hours job completion time (submit to finish), median, completed offline jobs
 * @param jctP99Hours job completion time, 99th percentile
 * @param jainFairness Jain's index over tenants of received ÷ demanded GPU-hours
 * @param usefulGpuHours useful GPU-hours delivered
 * @param evictions victims evicted
 * @param preemptionDecisions preemption decisions that evicted someone
 * @param migrations defragmentation migrations executed
 * @param reservations F2 reservations issued
 * @param firstDayReservations F2 reservations issued in the run's first simulated day: with no
 *     history before the start ({@link SimConfig#historyDays} 0, the study's default) these come
 *     from the forecaster's cold start (issue #21: a forecast from the first observed hour)
 * @param overIssues F3 over-issues that held GPUs, from the applied ledger ({@link OverIssueMeter})
 * @param overIssuedGpuHours GPU-hours those over-issues held
 * @param jobsSubmitted offline jobs submitted
 * @param jobsCompleted offline jobs completed
 * @param onlineScaleUps online instances requested by scale-up
 * @param timeline one sample per controller tick, for the charts
 */
public record SimResult(
    String policy,
    double onlineScaleUpWaitMedianSeconds,
    double onlineScaleUpWaitP95Seconds,
    double nightPoolOccupancy,
    double troughUtilisation,
    double preemptionsPerJobDay,
    double ineffectivePreemptionShare,
    double effectiveComputeShare,
    double bigJobQueueMedianMinutes,
    double allocationRate,
    double crossDomainShare,
    double crossDomainShareAll,
    double unitCost,
    double jctP50Hours,
    double jctP99Hours,
    double jainFairness,
    double usefulGpuHours,
    long evictions,
    long preemptionDecisions,
    long migrations,
    long reservations,
    long firstDayReservations,
    long overIssues,
    double overIssuedGpuHours,
    long jobsSubmitted,
    long jobsCompleted,
    long onlineScaleUps,
    java.util.List<TimelineSample> timeline) {

  public SimResult {
    timeline = java.util.List.copyOf(timeline);
  }

  /** The same result under another name (a report's column header). */
  public SimResult named(String name) {
    return new SimResult(name, onlineScaleUpWaitMedianSeconds, onlineScaleUpWaitP95Seconds,
        nightPoolOccupancy, troughUtilisation, preemptionsPerJobDay, ineffectivePreemptionShare,
        effectiveComputeShare, bigJobQueueMedianMinutes, allocationRate, crossDomainShare,
        crossDomainShareAll, unitCost, jctP50Hours, jctP99Hours, jainFairness, usefulGpuHours,
        evictions, preemptionDecisions, migrations, reservations, firstDayReservations, overIssues,
        overIssuedGpuHours,
        jobsSubmitted, jobsCompleted,
        onlineScaleUps, timeline);
  }
}
