package io.tideline.platform.topics;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one list of Tideline's topics, read from {@code tideline/topics.csv} on the classpath. The
 * local launcher creates topics from the same file, so the code and the running system cannot
 * disagree about names, partitions or compaction.
 */
public final class TopicCatalogue {

  public static final String GPU_TELEMETRY = "gpu.telemetry";
  /**
   * One record per node per scrape ({@code GpuSampleBatch}, key = node id, ADR 0040): read beside
   * {@link #GPU_TELEMETRY}, which stays readable while producers move over.
   */
  public static final String GPU_TELEMETRY_BATCHES = "gpu.telemetry.batches";
  public static final String CLUSTER_INVENTORY = "cluster.inventory";
  public static final String CLUSTER_CLOCK = "cluster.clock";
  public static final String JOBS_SUBMITTED = "jobs.submitted";
  public static final String JOBS_LIFECYCLE = "jobs.lifecycle";
  public static final String QUOTA_VERDICTS = "quota.verdicts";
  public static final String QUOTA_STATE = "quota.state";
  public static final String FORECAST_SLOTS = "forecast.slots";
  public static final String CAPACITY_RESERVATIONS = "capacity.reservations";
  public static final String PLACEMENT_DECISIONS = "placement.decisions";
  public static final String PLACEMENT_QUEUE = "placement.queue";
  public static final String PREEMPTION_REQUESTS = "preemption.requests";
  public static final String PREEMPTION_DECISIONS = "preemption.decisions";
  public static final String EVICTIONS = "evictions";
  public static final String NOTICES = "notices";
  public static final String BILLING_USAGE = "billing.usage";
  public static final String PLACEMENT_FRAGMENTATION = "placement.fragmentation";
  /** Placement's ledger input log: every accepted input, in the order the ledger decided (audit). */
  public static final String PLACEMENT_LEDGER_INPUTS = "placement.ledger.inputs";
  /** Quota's reclaim requests (Q3 guarantee, Q7 idle and shrink): preemption decides. */
  public static final String QUOTA_RECLAIMS = "quota.reclaims";
  /** The allocation ledger's applied changes (ADR 0008): what followers fold. */
  public static final String PLACEMENT_LEDGER = "placement.ledger";
  /** Quota's single-writer input log: every accepted input, in the order it decided (audit). */
  public static final String QUOTA_INPUTS = "quota.inputs";
  /** Preemption's single-writer input log: every accepted input, in the order it decided (audit). */
  public static final String PREEMPTION_INPUTS = "preemption.inputs";

  private static final String RESOURCE = "tideline/topics.csv";
  private static final List<TopicSpec> ALL = load();

  private TopicCatalogue() {}

  /** Every topic, in file order. */
  public static List<TopicSpec> all() {
    return ALL;
  }

  /** The topic of that name, if catalogued. */
  public static Optional<TopicSpec> find(String name) {
    return ALL.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  /** The topic of that name; fails if it is not catalogued. */
  public static TopicSpec get(String name) {
    return find(name).orElseThrow(
        () -> new IllegalArgumentException("topic " + name + " is not in " + RESOURCE));
  }

  static List<TopicSpec> load() {
    InputStream in = TopicCatalogue.class.getClassLoader().getResourceAsStream(RESOURCE);
    if (in == null) {
      throw new IllegalStateException(RESOURCE + " is missing from the classpath");
    }
    List<TopicSpec> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      int n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split(",", -1);
        if (f.length != 6) {
          throw new IllegalStateException(RESOURCE + ":" + n + ": expected 6 columns, got " + f.length);
        }
        String cleanup = f[2].trim();
        if (!List.of("delete", "compact", "retain").contains(cleanup)) {
          throw new IllegalStateException(RESOURCE + ":" + n + ": cleanup must be delete, compact or"
              + " retain, got " + cleanup);
        }
        out.add(new TopicSpec(f[0].trim(), Integer.parseInt(f[1].trim()),
            "compact".equals(cleanup), "retain".equals(cleanup), f[3].trim(), f[4].trim(),
            f[5].trim()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(out);
  }
}
