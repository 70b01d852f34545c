package io.tideline.simulator.placementstudy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of a small nodes/pods CSV pair in the public trace's format, shaped like its
 * mix (not a sample of it): {@link #NODES} nodes of four GPU models (A100 and V100M32 with 8 GPUs,
 * T4 and P100 with 2 or 4), each with CPU and memory; {@link #PODS} pods, about 10% without GPU,
 * 45% fractional (gpu_milli 100–700), 45% whole (1, 2, 4 or 8 GPUs), and a third of the GPU pods
 * constrained to one or two models that can hold them; every pod fits an empty node of some
 * allowed model (the mix tests placement, not impossible requests). The shipped pair ({@code simulator/data/placement-study/}) is
 * {@code SyntheticTrace simulator/data/placement-study 2026}.
 */
public final class SyntheticTrace {

  public static final int NODES = 200;
  public static final int PODS = 1000;
  private static final String[] MODELS = {"A100", "V100M32", "T4", "P100"};
  private static final int[] SHARES = {100, 200, 250, 300, 500, 700};

  private SyntheticTrace() {}

  /** The nodes CSV text of {@code seed}. */
  public static String nodesCsv(long seed) {
    Random r = new Random(seed);
    StringBuilder s = new StringBuilder("sn,cpu_milli,memory_mib,gpu,model\n");
    for (int i = 0; i < NODES; i++) {
      String model = MODELS[i * MODELS.length / NODES];
      boolean big = model.equals("A100") || model.equals("V100M32");
      int gpus = big ? 8 : (r.nextBoolean() ? 2 : 4);
      int cores = big ? 96 : gpus * (12 + 4 * r.nextInt(3));
      long memGib = big ? 512 + 256L * r.nextInt(2) : gpus * 48L;
      s.append(String.format("node-%03d,%d,%d,%d,%s%n", i, cores * 1000L, memGib * 1024, gpus,
          model));
    }
    return s.toString();
  }

  /** The pods CSV text of {@code seed}. */
  public static String podsCsv(long seed) {
    Random r = new Random(seed + 1);
    StringBuilder s = new StringBuilder("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
        + "pod_phase,creation_time,deletion_time,scheduled_time\n");
    for (int i = 0; i < PODS; i++) {
      double kind = r.nextDouble();
      int gpus;
      int milli;
      if (kind < 0.10) {
        gpus = 0;
        milli = 0;
      } else if (kind < 0.55) {
        gpus = 1;
        milli = SHARES[r.nextInt(SHARES.length)];
      } else {
        double w = r.nextDouble();
        gpus = w < 0.6 ? 1 : w < 0.8 ? 2 : w < 0.93 ? 4 : 8;
        milli = 1000;
      }
      long cpu = gpus == 0 ? 1000L * (4 + r.nextInt(29))
          : Math.max(1000, Math.round(1000 * Math.max(1, gpus) * (2 + r.nextInt(10))
              * (gpus == 1 ? Math.max(0.25, milli / 1000.0) : 1)));
      long mem = gpus == 0 ? 1024L * (8 + r.nextInt(57))
          : 1024L * Math.max(4, Math.round(Math.max(1, gpus) * (8 + r.nextInt(33))
              * (gpus == 1 ? Math.max(0.25, milli / 1000.0) : 1)));
      List<String> spec = new ArrayList<>();
      // constraints name models that can hold the pod: 8-GPU pods only the 8-GPU models
      int fits = gpus == 8 ? 2 : MODELS.length;
      if (gpus > 0 && r.nextInt(3) == 0) {
        spec.add(MODELS[r.nextInt(fits)]);
        if (r.nextBoolean()) {
          String second = MODELS[r.nextInt(fits)];
          if (!spec.contains(second)) {
            spec.add(second);
          }
        }
      }
      s.append(String.format("pod-%04d,%d,%d,%d,%d,%s,BE,Running,%d,,%d%n", i, cpu, mem, gpus,
          milli, String.join("|", spec), i * 10, i * 10 + 1));
    }
    return s.toString();
  }

  /** Writes {@code nodes.csv} and {@code pods.csv} of seed args[1] (default 2026) to args[0]. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "simulator/data/placement-study");
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 2026;
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("nodes.csv"), nodesCsv(seed), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("pods.csv"), podsCsv(seed), StandardCharsets.UTF_8);
    System.out.println("wrote " + dir.resolve("nodes.csv") + " and " + dir.resolve("pods.csv"));
  }
}
