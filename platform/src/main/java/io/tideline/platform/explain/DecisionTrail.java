package io.tideline.platform.explain;

import io.tideline.platform.topics.TopicCatalogue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.generic.GenericRecord;

/**
 * A job's decision trail, the one implementation behind {@code tideline explain JOB} and the
 * console's job page: which records of which topics belong to a job, their order, a one-line
 * summary of each and its rule trace. Pure: it reads decoded records, never Kafka.
 *
 * <p>A record belongs to a job when it names the job as {@code jobId} or {@code preemptorJobId},
 * lists it among its {@code victims}, or is a dead letter keyed by it; the capacity reservations
 * of the job's service (from its submission) belong to it too.
 */
public final class DecisionTrail {

  /** Topics a job's trail can run through, in the order they are read (ties sort by it). */
  public static final List<String> TOPICS = List.of(
      TopicCatalogue.JOBS_SUBMITTED, TopicCatalogue.JOBS_SUBMITTED + ".dlq",
      TopicCatalogue.QUOTA_VERDICTS, TopicCatalogue.CAPACITY_RESERVATIONS,
      TopicCatalogue.PLACEMENT_DECISIONS, TopicCatalogue.PLACEMENT_QUEUE,
      TopicCatalogue.PREEMPTION_REQUESTS, TopicCatalogue.PREEMPTION_DECISIONS,
      TopicCatalogue.EVICTIONS, TopicCatalogue.JOBS_LIFECYCLE, TopicCatalogue.NOTICES);

  /** Fields worth a word in the one-line summary, in this order. */
  public static final List<String> SUMMARY_FIELDS = List.of("workloadClass", "verdict", "outcome",
      "action", "type", "kind", "errorClass", "lane", "position", "gpus", "domainLevel",
      "crossDomain", "preemptorJobId", "totalCostGpuHours", "gainGpuHours", "estimatedStart",
      "reason", "error");

  /** One record: where it was, its key, its timestamp, its decoded value or why it could not be. */
  public record Entry(String topic, String key, long timestamp, Object value, String error) {}

  /** One step of a rule trace. */
  public record Step(String subject, String rule, String outcome, String detail) {}

  /** One line of the trail: the record, its summary and its rule trace. */
  public record Line(Entry entry, Instant at, String summary, List<Step> trace) {}

  private DecisionTrail() {}

  /** The job's trail among {@code entries} (any order), oldest first; empty if none mention it. */
  public static List<Line> of(String jobId, Iterable<Entry> entries) {
    List<Entry> mine = new ArrayList<>();
    List<Entry> reservations = new ArrayList<>();
    String serviceId = null;
    for (Entry e : entries) {
      if (e.topic().equals(TopicCatalogue.CAPACITY_RESERVATIONS)) {
        reservations.add(e);
      } else if (mentions(e, jobId)) {
        mine.add(e);
        if (serviceId == null && e.topic().equals(TopicCatalogue.JOBS_SUBMITTED)) {
          serviceId = Fields.text(e.value(), "serviceId");
        }
      }
    }
    if (serviceId != null) {
      for (Entry r : reservations) {
        if (serviceId.equals(Fields.text(r.value(), "serviceId"))) {
          mine.add(r);
        }
      }
    }
    mine.sort(Comparator.comparingLong(Entry::timestamp)
        .thenComparing(e -> TOPICS.indexOf(e.topic())));
    return mine.stream().map(e -> new Line(e, Instant.ofEpochMilli(e.timestamp()), summary(e),
        trace(e))).toList();
  }

  /** Whether the record names the job (see the class comment). */
  public static boolean mentions(Entry e, String jobId) {
    return jobsNamed(e).contains(jobId);
  }

  /** Every job the record names: the jobs whose trail it is part of (reservations aside). */
  public static Set<String> jobsNamed(Entry e) {
    Set<String> jobs = new LinkedHashSet<>();
    if (e.key() != null && e.topic().endsWith(".dlq")) {
      jobs.add(e.key());
    }
    Object v = e.value();
    addIfPresent(jobs, Fields.text(v, "jobId"));
    addIfPresent(jobs, Fields.text(v, "preemptorJobId"));
    if (Fields.field(v, "victims") instanceof Collection<?> victims) {
      for (Object victim : victims) {
        addIfPresent(jobs, Fields.text(victim, "jobId"));
      }
    }
    return jobs;
  }

  /** The record's rule trace, empty when it has none. */
  public static List<Step> trace(Entry e) {
    List<Step> steps = new ArrayList<>();
    if (Fields.field(e.value(), "trace") instanceof Collection<?> trace) {
      for (Object s : trace) {
        steps.add(new Step(Fields.text(s, "subject"), Fields.text(s, "rule"),
            Fields.text(s, "outcome"), Fields.text(s, "detail")));
      }
    }
    return steps;
  }

  /** One line saying what the record decided. */
  public static String summary(Entry e) {
    if (e.error() != null) {
      return "<undecodable: " + e.error() + ">";
    }
    if (e.value() == null) {
      return "<tombstone: left the queue>";
    }
    StringBuilder sb = new StringBuilder();
    for (String f : SUMMARY_FIELDS) {
      Object v = Fields.field(e.value(), f);
      if (v != null && !v.toString().isEmpty()) {
        if (sb.length() > 0) {
          sb.append(", ");
        }
        sb.append(f).append('=').append(f.endsWith("Start") ? Fields.instant(e.value(), f) : v);
      }
    }
    if (Fields.field(e.value(), "victims") instanceof Collection<?> victims && !victims.isEmpty()) {
      sb.append(", victims=").append(victims.stream().map(x -> Fields.text(x, "jobId")).toList());
    }
    if (Fields.field(e.value(), "assignments") instanceof Collection<?> a && !a.isEmpty()) {
      sb.append(", gpus on ").append(a.stream().map(x -> Fields.text(x, "nodeId") + "/"
          + Fields.text(x, "gpuIndex")).toList());
    }
    if (Fields.field(e.value(), "resources") instanceof GenericRecord r) {
      sb.append(", ").append(r.get("gpuCount")).append(" GPU(s) gang ").append(r.get("gangSize"));
    }
    return sb.toString();
  }

  private static void addIfPresent(Set<String> jobs, String id) {
    if (id != null) {
      jobs.add(id);
    }
  }
}
