package io.tideline.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tideline.cli.audit.Replay;
import io.tideline.cli.audit.ReplayTarget;
import io.tideline.cli.audit.ReplayTargets;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tideline audit …}: audits of recorded decisions. */
@Command(name = "audit", description = "Audit recorded decisions.",
    subcommands = {AuditCommand.ReplayCommand.class})
final class AuditCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * {@code tideline audit replay --from T1 --to T2 [--cluster C]}: re-runs placement's, quota's and
   * preemption's own decision code on their recorded input logs and compares every decision of the window with
   * the recorded one (ADR 0005). Prints a summary, writes the mismatches to a JSON report, exits 0
   * when every decision is reproduced and {@value #MISMATCHES} when one is not. Reads only.
   */
  @Command(name = "replay", description = "Re-run the decision code on the recorded inputs of a "
      + "window and compare every decision with the recorded one.")
  static final class ReplayCommand implements Callable<Integer> {

    /** Exit code when at least one decision is not reproduced. */
    static final int MISMATCHES = 3;

    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--from", required = true, description = "Window start, ISO instant (inclusive)")
    Instant from;

    @Option(names = "--to", required = true, description = "Window end, ISO instant (exclusive)")
    Instant to;

    @Option(names = "--cluster", defaultValue = "default", description = "Cluster (ledger key); default ${DEFAULT-VALUE}")
    String cluster;

    @Option(names = "--ledger", split = ",", defaultValue = "placement,quota,preemption",
        description = "Ledgers to replay: placement, quota, preemption; default ${DEFAULT-VALUE}")
    List<String> ledgers;

    @Option(names = "--quota-definition", defaultValue = ReplayTargets.DEFAULT_QUOTA_DEFINITION,
        description = "quota-svc's bootstrap definition (file or classpath:NAME); default ${DEFAULT-VALUE}")
    String quotaDefinition;

    @Option(names = "--report", description = "Where to write the JSON report; default audit-replay-<from>-<to>.json")
    Path report;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      Replay.Window window = new Replay.Window(from, to);
      var client = connection.clientProperties();
      // the ledgers serialize what they emit (and keep some of it in their store) through the
      // registry: its serializer finds the schema versions the live services registered
      Map<String, Object> serde = connection.specificSerde();
      List<Replay.Result> results = new ArrayList<>();
      out.printf("Audit replay of %s .. %s, cluster %s%n", from, to, cluster);
      for (String ledger : ledgers) {
        ReplayTarget target = switch (ledger.trim()) {
          case "placement" -> ReplayTargets.placement(cluster);
          case "quota" -> ReplayTargets.quota(cluster, quotaDefinition);
          case "preemption" -> ReplayTargets.preemption(cluster);
          default -> throw new IllegalArgumentException("unknown ledger " + ledger
              + " (placement, quota, preemption)");
        };
        Replay.Result r = Replay.run(client, serde, target, cluster, window);
        results.add(r);
        print(out, r);
      }
      int total = results.stream().mapToInt(r -> r.mismatches().size()).sum();
      Path file = report != null ? report : Path.of("audit-replay-" + stamp(from) + "-" + stamp(to) + ".json");
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(),
          json(window, results));
      out.printf("%d mismatch(es); report: %s%n", total, file);
      return total == 0 ? 0 : MISMATCHES;
    }

    private static void print(PrintWriter out, Replay.Result r) {
      out.printf("  %-10s %d input(s) replayed to rebuild state, %d in the window; %d decision(s) "
              + "recorded, %d recomputed: %d mismatch(es)%n", r.target(), r.inputsBefore(),
          r.inputsInWindow(), r.recorded(), r.recomputed(), r.mismatches().size());
      out.printf("  %-10s policy recorded %s, replayed %s%n", "", r.recordedPolicies().keySet(),
          r.replayedPolicies().keySet());
      if (!r.logStart().isEmpty()) {
        out.printf("  %-10s TRUNCATED LOG: %s starts at offset %s (partition=offset); earlier inputs "
            + "were deleted, so the state before the window is incomplete and mismatches may "
            + "come from that%n", "", r.target(), r.logStart());
      }
      if (r.acrossConfigChange()) {
        boolean inLog = r.replayedPolicies().keySet().containsAll(r.recordedPolicies().keySet());
        out.printf("  %-10s ACROSS A CONFIG CHANGE: recorded %s; %s%n", "", r.recordedPolicies(),
            inLog ? "the change is in the log, the replay applied it where it was recorded"
                : "this replay ran " + r.replayedPolicies().keySet() + ", so decisions under the "
                    + "other rules differ by their rules, not by the log");
      }
      for (Replay.Mismatch m : r.mismatches()) {
        out.printf("  %-10s %s %s %s %s key=%s at %s: %s%n", "", m.kind(), m.topic(), m.id(),
            m.where(), m.key(), m.timestamp(), String.join("; ", m.differences()));
      }
    }

    private static Map<String, Object> json(Replay.Window w, List<Replay.Result> results) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("from", w.from().toString());
      root.put("to", w.to().toString());
      List<Object> ledgers = new ArrayList<>();
      for (Replay.Result r : results) {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("ledger", r.target());
        l.put("cluster", r.cluster());
        l.put("inputsReplayedForState", r.inputsBefore());
        l.put("inputsInWindow", r.inputsInWindow());
        l.put("recorded", r.recorded());
        l.put("recomputed", r.recomputed());
        l.put("recordedPolicyVersions", strings(r.recordedPolicies()));
        l.put("replayedPolicyVersions", strings(r.replayedPolicies()));
        l.put("acrossConfigChange", r.acrossConfigChange());
        l.put("truncatedLogStart", r.logStart());
        List<Object> ms = new ArrayList<>();
        for (Replay.Mismatch m : r.mismatches()) {
          Map<String, Object> j = new LinkedHashMap<>();
          j.put("kind", m.kind().name());
          j.put("topic", m.topic());
          j.put("key", m.key());
          j.put("id", m.id());
          j.put("timestamp", m.timestamp().toString());
          j.put("recordedAt", m.where());
          j.put("differences", m.differences());
          ms.add(j);
        }
        l.put("mismatches", ms);
        ledgers.add(l);
      }
      root.put("ledgers", ledgers);
      return root;
    }

    private static Map<String, String> strings(Map<String, Instant> m) {
      Map<String, String> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(k, "first at " + v));
      return out;
    }

    private static String stamp(Instant t) {
      return t.toString().replace(":", "");
    }
  }
}
