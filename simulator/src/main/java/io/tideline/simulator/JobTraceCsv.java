package io.tideline.simulator;

import io.tideline.core.model.WorkloadClass;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads an offline-job trace, so a study can replay a real cluster's jobs instead of the
 * synthetic mix. Format: a header line, then one job per line, comma-separated, in this order:
 *
 * <pre>
 * submit_offset_s,duration_s,gpus,gpu_fraction,gpu_model,class,tenant,preemptible,checkpoint
 * 0,7200,8,1.0,H100,TRAINING,tenant-a,true,MEDIUM
 * 300,3600,1,0.5,,BATCH_INFERENCE,tenant-b,true,NONE
 * </pre>
 *
 * <ul>
 *   <li>{@code submit_offset_s}: seconds after the simulation start;
 *   <li>{@code duration_s}: run time at full speed;
 *   <li>{@code gpus}: whole GPUs of the gang (1 for a fractional job); {@code gpu_fraction}: share
 *       of one GPU (1.0 for whole GPUs);
 *   <li>{@code gpu_model}: required model, empty for any;
 *   <li>{@code class}: {@code TRAINING}, {@code EXPLORATORY_TRAINING}, {@code BATCH_INFERENCE}, or
 *       {@code CRITICAL_TRAINING} (training marked critical, W1);
 *   <li>{@code tenant}; {@code preemptible}: {@code true}/{@code false} (W4);
 *   <li>{@code checkpoint}: a {@link CheckpointKind} name.
 * </ul>
 * Lines starting with {@code #} and blank lines are skipped. Job ids are {@code trace-<line>}.
 */
public final class JobTraceCsv {

  private static final int COLUMNS = 9;
  private static final String CRITICAL_TRAINING = "CRITICAL_TRAINING";

  private JobTraceCsv() {}

  /** Parses the trace; errors name the line. No file I/O here: the caller opens the reader. */
  public static List<JobSpec> parse(Reader csv, Instant start) {
    List<JobSpec> out = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(csv)) {
      String line = in.readLine();
      int lineNo = 1;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.strip().split(",", -1);
        if (f.length != COLUMNS) {
          throw new IllegalArgumentException("line " + lineNo + ": expected " + COLUMNS
              + " fields, got " + f.length);
        }
        try {
          String cls = f[5].strip().toUpperCase(Locale.ROOT);
          boolean critical = cls.equals(CRITICAL_TRAINING);
          WorkloadClass wc = critical ? WorkloadClass.TRAINING : WorkloadClass.valueOf(cls);
          out.add(new JobSpec("trace-" + lineNo,
              start.plusSeconds(Long.parseLong(f[0].strip())), Long.parseLong(f[1].strip()),
              Integer.parseInt(f[2].strip()), Double.parseDouble(f[3].strip()), f[4].strip(), wc,
              critical, f[6].strip(), Boolean.parseBoolean(f[7].strip()),
              CheckpointKind.valueOf(f[8].strip().toUpperCase(Locale.ROOT))));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("line " + lineNo + ": " + e.getMessage(), e);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
