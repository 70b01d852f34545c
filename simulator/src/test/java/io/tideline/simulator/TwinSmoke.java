package io.tideline.simulator;

/** Runs one policy for a short horizon and prints the table (a developer's probe, not a test). */
public final class TwinSmoke {
  public static void main(String[] args) throws Exception {
    int nodes = Integer.parseInt(args.length > 0 ? args[0] : "16");
    int hours = Integer.parseInt(args.length > 1 ? args[1] : "24");
    SimConfig c = SimConfig.DEFAULTS.with(42L, Math.max(1, (hours + 23) / 24), nodes);
    if (args.length > 2) {
      c = c.withJobsPerDay(Double.parseDouble(args[2]));
    }
    Scenario s = Scenario.synthetic(c);
    long t0 = System.nanoTime();
    java.util.Map<String, java.util.List<String>> verdicts = new java.util.TreeMap<>();
    InProcessTransport t = Twins.inProcess(s, Policy.TIDELINE).tap(rec -> {
      if (rec.value() instanceof io.tideline.events.QuotaVerdict v) {
        verdicts.computeIfAbsent(v.getJobId(), k -> new java.util.ArrayList<>())
            .add(v.getDecidedAt() + " " + v.getVerdict() + " " + v.getReason() + " | " + v.getUnblockHint());
      }
    });
    SimResult r = Twin.run("tideline", Twins.world(s), t, Twin.Settings.of(c),
        c.start().plus(java.time.Duration.ofHours(hours)), null);
    verdicts.entrySet().stream().sorted((a, b) -> b.getValue().size() - a.getValue().size())
        .limit(1).forEach(e -> e.getValue().stream().limit(12).forEach(System.out::println));
    System.out.println(new Report(java.util.List.of(r)).markdown());
    System.out.println("wall " + (System.nanoTime() - t0) / 1e9 + " s; published " + t.published()
        + "; refused " + t.refused());
  }
}
