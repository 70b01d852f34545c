package io.tideline.simulator.placementstudy;

import io.tideline.core.placement.DemandMix;
import io.tideline.core.placement.NodeScoring;
import io.tideline.core.placement.PlacementConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ./tideline study placement --nodes X.csv --pods Y.csv [--seeds 42-51] [--out DIR]}:
 * runs the placement study, prints the Markdown tables and writes {@code placement-study.csv}
 * (and {@code .md}) to DIR (default {@code simulator/target/placement-study}).
 */
public final class PlacementStudyMain {

  private PlacementStudyMain() {}

  /**
   * The policies side by side: the baseline, Tideline's default (best-fit) rule, and Tideline's
   * fragmentation rule measured against the demand mix of {@code pods} (as the published study
   * gives its scheduler the trace's own pod-type distribution).
   */
  public static List<StudyPolicy> policies(List<StudyPod> pods) {
    PlacementConfig d = PlacementConfig.DEFAULTS;
    DemandMix mix = DemandMix.of(pods.stream().map(PlacementStudy::request).toList(),
        DemandMix.DEFAULT_MAX_SHAPES);
    return List.of(new BestFitPolicy(d.gpuModels()),
        new TidelinePolicy("Tideline best-fit rule", d),
        new TidelinePolicy("Tideline fragmentation rule",
            d.withScoring(NodeScoring.fragmentation(mix))));
  }

  public static void main(String[] args) throws IOException {
    Path nodes = null;
    Path pods = null;
    Path out = Path.of("simulator/target/placement-study");
    StudyConfig config = StudyConfig.DEFAULTS;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--nodes" -> nodes = Path.of(v);
        case "--pods" -> pods = Path.of(v);
        case "--out" -> out = Path.of(v);
        case "--seeds" -> {
          String[] r = v.split("-", 2);
          try {
            long first = Long.parseLong(r[0]);
            config = config.withSeeds(first, r.length > 1 ? Long.parseLong(r[1]) : first);
          } catch (NumberFormatException e) {
            usage("--seeds wants FIRST-LAST, e.g. 42-51, got " + v);
          }
        }
        default -> usage("unknown option " + a);
      }
    }
    if (nodes == null || pods == null) {
      usage("--nodes and --pods are required");
    }
    StudyResult r;
    try {
      List<StudyPod> podRows = TraceCsv.readPods(pods);
      PlacementStudy study = new PlacementStudy(TraceCsv.readNodes(nodes), podRows, config);
      r = study.run(policies(podRows));
    } catch (TraceCsvException | IllegalArgumentException e) {
      System.err.println("study placement: " + e.getMessage());
      System.exit(2);
      return;
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("placement-study.csv"), r.csv(), StandardCharsets.UTF_8);
    Files.writeString(out.resolve("placement-study.md"), r.markdown(), StandardCharsets.UTF_8);
    System.out.print(r.markdown());
    System.out.println("\nwrote " + out.resolve("placement-study.csv"));
  }

  private static void usage(String why) {
    System.err.println("study placement: " + why + "\nusage: ./tideline study placement --nodes"
        + " NODES.csv --pods PODS.csv [--seeds 42-51] [--out DIR]");
    System.exit(2);
  }
}
