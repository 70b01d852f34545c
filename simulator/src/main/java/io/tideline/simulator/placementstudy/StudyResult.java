package io.tideline.simulator.placementstudy;

import java.util.List;
import java.util.Locale;

/** Every policy's runs, with the tables the study prints: Markdown and CSV. */
public record StudyResult(StudyConfig config, int nodes, double capacity,
    List<List<PlacementStudy.SeedRun>> runs) {

  /** Mean and sample standard deviation of {@code pct}% allocation over one policy's seeds. */
  public double[] allocation(int policy, int pct) {
    List<PlacementStudy.SeedRun> rs = runs.get(policy);
    double sum = 0;
    for (PlacementStudy.SeedRun r : rs) {
      sum += r.allocationAt(pct, config);
    }
    double mean = sum / rs.size();
    double sq = 0;
    for (PlacementStudy.SeedRun r : rs) {
      double d = r.allocationAt(pct, config) - mean;
      sq += d * d;
    }
    return new double[] {mean, rs.size() > 1 ? Math.sqrt(sq / (rs.size() - 1)) : 0};
  }

  /** The summary and curve tables. */
  public String markdown() {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "%d nodes, %.0f GPUs; seeds %d-%d; arrival inflated to"
        + " %d%%; mean ± stdev over seeds%n%n", nodes, capacity, config.firstSeed(),
        config.lastSeed(), config.inflationPct()));
    s.append("| policy | unallocated GPU at 100% arrival | allocation at 100% | allocation at ")
        .append(config.inflationPct()).append("% |\n|---|---:|---:|---:|\n");
    for (int p = 0; p < runs.size(); p++) {
      double[] a100 = allocation(p, 100);
      double[] aMax = allocation(p, config.inflationPct());
      s.append(String.format(Locale.ROOT, "| %s | %.2f%% ± %.2f | %.2f%% | %.2f%% |%n",
          runs.get(p).get(0).policy(), 100 * (1 - a100[0]), 100 * a100[1], 100 * a100[0],
          100 * aMax[0]));
    }
    s.append("\n| arrival |");
    for (List<PlacementStudy.SeedRun> r : runs) {
      s.append(' ').append(r.get(0).policy()).append(" |");
    }
    s.append("\n|---:|").append("---:|".repeat(runs.size())).append('\n');
    for (int k = 1; k <= config.steps(); k++) {
      int pct = k * config.stepPct();
      s.append("| ").append(pct).append("% |");
      for (int p = 0; p < runs.size(); p++) {
        s.append(String.format(Locale.ROOT, " %.2f%% |", 100 * allocation(p, pct)[0]));
      }
      s.append('\n');
    }
    return s.toString();
  }

  /** One row per policy, seed and arrival step. */
  public String csv() {
    StringBuilder s = new StringBuilder("policy,seed,arrival_pct,allocation_ratio,arrivals,placed\n");
    for (List<PlacementStudy.SeedRun> rs : runs) {
      for (PlacementStudy.SeedRun r : rs) {
        for (int k = 1; k <= config.steps(); k++) {
          s.append(String.format(Locale.ROOT, "%s,%d,%d,%.6f,%d,%d%n", r.policy(), r.seed(),
              k * config.stepPct(), r.curve()[k - 1], r.arrivals(), r.placed()));
        }
      }
    }
    return s.toString();
  }
}
