package io.tideline.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The comparison table: one row per measure, one column per policy, and the figure the
 * requirement states. Definitions of the measures (all over the simulated horizon):
 *
 * <ul>
 *   <li><b>online scale-up wait</b> (F): per online instance requested by a scale-up, from the
 *       request to the start of service, including the victims' checkpoint write when it had to
 *       preempt; median, seconds. Instances cancelled before starting are not counted.
 *   <li><b>night shared-pool occupancy</b> (F): in the night window, GPUs allocated beyond online's
 *       use of its Q1 guarantee (70% of each service's peak) ÷ the shared pool (fleet − that
 *       guarantee), capped at 1; mean of 5-minute samples.
 *   <li><b>trough utilisation</b> (F): allocated GPU share of the fleet in TROUGH and DEEP_TROUGH
 *       slots of the F4 slot map; mean of samples.
 *   <li><b>preemptions per job per day</b> (P): evictions ÷ offline job-days spent running.
 *   <li><b>ineffective preemptions</b> (P): among preemption decisions placement enacted (an
 *       eviction names them: a stale plan it refused evicted nobody and is not counted), the
 *       share whose preemptor did not start within the ineffective window (5 min) or whose
 *       realised gain (preemptor GPUs × min(run time, wait it avoided) × class weight, the P5
 *       gain on realised run time; a Q3 guarantee reclaim, which expects no gain, on run time
 *       alone) was below the victims' P4 cost.
 *   <li><b>effective compute share</b> (P): work kept (full-speed GPU-seconds that count towards
 *       completion, or serving time) ÷ GPU-seconds allocated. Checkpoint writes, restores, comm
 *       rebuilds, cache warm-up, redone progress and cross-domain slowdown are the difference.
 *   <li><b>queue time of ≥ 8-GPU jobs</b> (T): submission to first start, median, minutes; jobs
 *       never started count with their wait up to the horizon.
 *   <li><b>GPU allocation rate</b> (T): allocated GPU share of the fleet, mean of samples.
 *   <li><b>cross-domain share</b> (T): placements spanning more than one access switch on the
 *       physical topology ÷ multi-node placements, and ÷ all offline placements (starts and
 *       restarts).
 *   <li><b>cost vs hard split</b> (B): priced fleet cost (PriceTable rate of each GPU-hour's slot)
 *       per useful GPU-hour, relative to the hard split.
 *   <li><b>job completion time</b>: submission to completion of completed offline jobs, hours.
 *   <li><b>fairness</b>: Jain's index over tenants of received ÷ demanded GPU-hours.
 *   <li><b>F3 over-issues</b> and <b>over-issued GPU-hours</b>: how often the under-forecast
 *       fallback lent shared-pool GPUs beyond the reservation and how many GPU-hours it held,
 *       from the ledger placement applied, not the forecaster's intentions
 *       ({@link OverIssueMeter}).
 *   <li><b>forecast reservations, first day</b> (F, issue #21): RESERVEs published before the run's
 *       first simulated day ended; the study starts without history, so these are the
 *       forecaster's cold-start reservations (a forecast from the first observed hour).
 * </ul>
 */
public final class Report {

  private record Row(String name, String requirement, String format,
      ToDoubleFunction<SimResult> value) {}

  private final List<SimResult> results;
  private final SimResult hardSplit;
  private final List<Row> rows = new ArrayList<>();

  /** A report over results, the first of which must be Tideline's. */
  public Report(List<SimResult> results) {
    this.results = List.copyOf(results);
    this.hardSplit = results.stream().filter(r -> r.policy().equals(Policy.HARD_SPLIT.name()))
        .findFirst().orElse(null);
    rows.add(new Row("online scale-up wait, median (s)", "F: 42 → 9", "%.1f",
        SimResult::onlineScaleUpWaitMedianSeconds));
    rows.add(new Row("online scale-up wait, p95 (s)", "", "%.1f",
        SimResult::onlineScaleUpWaitP95Seconds));
    rows.add(new Row("night shared-pool occupancy (%)", "F: > 80", "%.1f",
        r -> 100 * r.nightPoolOccupancy()));
    rows.add(new Row("trough utilisation (%)", "F: 30 → 75", "%.1f",
        r -> 100 * r.troughUtilisation()));
    rows.add(new Row("preemptions per job per day", "P: 7.2 → 1.4", "%.3f",
        SimResult::preemptionsPerJobDay));
    rows.add(new Row("ineffective preemptions (%)", "P: 31 → 6", "%.1f",
        r -> 100 * r.ineffectivePreemptionShare()));
    rows.add(new Row("effective compute share (%)", "P: +9 pp", "%.1f",
        r -> 100 * r.effectiveComputeShare()));
    rows.add(new Row("queue time of ≥ 8-GPU jobs, median (min)", "T: 26 → 7", "%.1f",
        SimResult::bigJobQueueMedianMinutes));
    rows.add(new Row("GPU allocation rate (%)", "T: 88", "%.1f",
        r -> 100 * r.allocationRate()));
    rows.add(new Row("cross-domain share of multi-node placements (%)", "", "%.1f",
        r -> 100 * r.crossDomainShare()));
    rows.add(new Row("cross-domain share of all offline placements (%)", "T: < 10", "%.1f",
        r -> 100 * r.crossDomainShareAll()));
    rows.add(new Row("cost per useful GPU-hour vs hard split (%)", "B: −35", "%+.1f",
        r -> hardSplit == null || hardSplit.unitCost() == 0 ? Double.NaN
            : 100 * (r.unitCost() / hardSplit.unitCost() - 1)));
    rows.add(new Row("job completion time p50 (h)", "", "%.2f", SimResult::jctP50Hours));
    rows.add(new Row("job completion time p99 (h)", "", "%.2f", SimResult::jctP99Hours));
    rows.add(new Row("fairness across tenants (Jain)", "", "%.3f", SimResult::jainFairness));
    rows.add(new Row("useful GPU-hours", "", "%.0f", SimResult::usefulGpuHours));
    rows.add(new Row("evictions", "", "%.0f", r -> r.evictions()));
    rows.add(new Row("preemption decisions", "", "%.0f", r -> r.preemptionDecisions()));
    rows.add(new Row("defrag migrations", "", "%.0f", r -> r.migrations()));
    rows.add(new Row("forecast reservations", "", "%.0f", r -> r.reservations()));
    rows.add(new Row("forecast reservations, first day", "", "%.0f",
        r -> r.firstDayReservations()));
    rows.add(new Row("F3 over-issues", "", "%.0f", r -> r.overIssues()));
    rows.add(new Row("F3 over-issued GPU-hours", "", "%.1f", SimResult::overIssuedGpuHours));
    rows.add(new Row("offline jobs completed / submitted", "", "%s", r -> Double.NaN));
  }

  /** The table as GitHub Markdown. */
  public String markdown() {
    StringBuilder sb = new StringBuilder("| measure | requirement |");
    results.forEach(r -> sb.append(' ').append(r.policy()).append(" |"));
    sb.append("\n|---|---|");
    results.forEach(r -> sb.append("---:|"));
    sb.append('\n');
    for (Row row : rows) {
      sb.append("| ").append(row.name()).append(" | ").append(row.requirement()).append(" |");
      results.forEach(r -> sb.append(' ').append(cell(row, r)).append(" |"));
      sb.append('\n');
    }
    return sb.toString();
  }

  /** The table as an HTML {@code <table>} (same rows and columns), for the HTML report. */
  public String html() {
    StringBuilder sb = new StringBuilder("<table>\n<thead><tr><th>measure</th><th>requirement</th>");
    results.forEach(r -> sb.append("<th>").append(HtmlReport.escape(r.policy())).append("</th>"));
    sb.append("</tr></thead>\n<tbody>\n");
    for (Row row : rows) {
      sb.append("<tr><td>").append(HtmlReport.escape(row.name())).append("</td><td>")
          .append(HtmlReport.escape(row.requirement())).append("</td>");
      results.forEach(r -> sb.append("<td class=\"n\">").append(HtmlReport.escape(cell(row, r)))
          .append("</td>"));
      sb.append("</tr>\n");
    }
    return sb.append("</tbody>\n</table>\n").toString();
  }

  /** The table as CSV (same rows and columns). */
  public String csv() {
    StringBuilder sb = new StringBuilder("measure,requirement");
    results.forEach(r -> sb.append(',').append(r.policy()));
    sb.append('\n');
    for (Row row : rows) {
      sb.append(quote(row.name())).append(',').append(quote(row.requirement()));
      results.forEach(r -> sb.append(',').append(quote(cell(row, r))));
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String cell(Row row, SimResult r) {
    if (row.format().equals("%s")) {
      return r.jobsCompleted() + " / " + r.jobsSubmitted();
    }
    double v = row.value().applyAsDouble(r);
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, row.format(), v);
  }

  private static String quote(String s) {
    return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
