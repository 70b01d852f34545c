package io.tideline.cli;

import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.topics.TopicCatalogue;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tideline explain JOB}: the job's whole decision trail in time order — its submission (or
 * dead letter), quota verdicts, placements and queue positions, the reservations of its service,
 * preemption requests and decisions it was part of (as preemptor or victim) with their rule
 * traces, evictions, lifecycle facts and the notices sent about it.
 */
@Command(name = "explain", description = "Show every decision about a job, with its rule traces.")
final class ExplainCommand implements Callable<Integer> {

  /** Topics a job's trail can run through, in the order they are read. */
  static final List<String> TOPICS = List.of(
      TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.JOBS_SUBMITTED + ".dlq",
      TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.CAPACITY_RESERVATIONS,
      TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.PLACEMENT_QUEUE,
      TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.PREEMPTION_DECISIONS,
      TopicCatalogue.EVICTIONS, TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.NOTICES);

  /** Fields worth a word in the one-line summary, in this order. */
  static final List<String> SUMMARY_FIELDS = List.of("workloadClass", "verdict", "outcome",
      "action", "type", "kind", "errorClass", "lane", "position", "gpus", "domainLevel",
      "crossDomain", "preemptorJobId", "totalCostGpuHours", "gainGpuHours", "estimatedStart",
      "reason", "error");

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "Job id")
  String jobId;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Properties client = connection.clientProperties();
    Deserializer<Object> values = AvroSerdes.valueDeserializer(connection.genericSerde());
    List<TopicReader.Entry> trail = new ArrayList<>();
    String serviceId = null;
    for (String topic : TOPICS) {
      List<TopicReader.Entry> entries;
      try {
        entries = TopicReader.readAll(client, topic, values);
      } catch (IllegalArgumentException missingTopic) {
        continue;
      }
      for (TopicReader.Entry e : entries) {
        if (topic.equals(TopicCatalogue.CAPACITY_RESERVATIONS)) {
          if (serviceId != null && serviceId.equals(Render.text(e.value(), "serviceId"))) {
            trail.add(e);
          }
        } else if (mentions(e, jobId)) {
          trail.add(e);
          if (topic.equals(TopicCatalogue.JOBS_SUBMITTED) && serviceId == null) {
            serviceId = Render.text(e.value(), "serviceId");
          }
        }
      }
    }
    if (trail.isEmpty()) {
      out.println("no record mentions job " + jobId);
      return 1;
    }
    trail.sort(Comparator.comparingLong(TopicReader.Entry::timestamp)
        .thenComparing(e -> TOPICS.indexOf(e.raw().topic())));
    out.println("Decision trail of " + jobId + " (" + trail.size() + " records)");
    for (TopicReader.Entry e : trail) {
      out.printf("%s  %-22s %s%n", Instant.ofEpochMilli(e.timestamp()), e.raw().topic(), summary(e));
      Object trace = Render.field(e.value(), "trace");
      if (trace instanceof Collection<?> steps) {
        for (Object step : steps) {
          out.printf("%26s  %-14s %-12s %-10s %s%n", "", Render.text(step, "subject"),
              Render.text(step, "rule"), Render.text(step, "outcome"), Render.text(step, "detail"));
        }
      }
    }
    return 0;
  }

  static boolean mentions(TopicReader.Entry e, String jobId) {
    if (jobId.equals(e.key()) && e.raw().topic().endsWith(".dlq")) {
      return true;
    }
    Object v = e.value();
    if (jobId.equals(Render.text(v, "jobId")) || jobId.equals(Render.text(v, "preemptorJobId"))) {
      return true;
    }
    if (Render.field(v, "victims") instanceof Collection<?> victims) {
      for (Object victim : victims) {
        if (jobId.equals(Render.text(victim, "jobId"))) {
          return true;
        }
      }
    }
    return false;
  }

  static String summary(TopicReader.Entry e) {
    if (e.error() != null) {
      return "<undecodable: " + e.error() + ">";
    }
    if (e.value() == null) {
      return "<tombstone: left the queue>";
    }
    StringBuilder sb = new StringBuilder();
    for (String f : SUMMARY_FIELDS) {
      Object v = Render.field(e.value(), f);
      if (v != null && !v.toString().isEmpty()) {
        if (sb.length() > 0) {
          sb.append(", ");
        }
        sb.append(f).append('=').append(f.endsWith("Start") ? Render.instant(e.value(), f) : v);
      }
    }
    if (Render.field(e.value(), "victims") instanceof Collection<?> victims && !victims.isEmpty()) {
      sb.append(", victims=").append(victims.stream().map(x -> Render.text(x, "jobId")).toList());
    }
    if (Render.field(e.value(), "assignments") instanceof Collection<?> a && !a.isEmpty()) {
      sb.append(", gpus on ").append(a.stream().map(x -> Render.text(x, "nodeId") + "/"
          + Render.text(x, "gpuIndex")).toList());
    }
    if (Render.field(e.value(), "resources") instanceof GenericRecord r) {
      sb.append(", ").append(r.get("gpuCount")).append(" GPU(s) gang ").append(r.get("gangSize"));
    }
    return sb.toString();
  }
}
