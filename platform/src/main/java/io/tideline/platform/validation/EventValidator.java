package io.tideline.platform.validation;

import io.tideline.core.admission.SubmissionCheck;
import io.tideline.core.admission.Violation;
import io.tideline.events.CapacityReservation;
import io.tideline.events.GpuInfo;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.Holiday;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.NotifyPreference;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.SlotForecast;
import io.tideline.platform.intake.JobRequests;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.regex.Pattern;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;

/**
 * The one check of every decoded event, shared by every consumer of every topic so that they
 * cannot disagree (ADR 0012): what the Avro schema cannot say. Three layers, all stateless:
 *
 * <ol>
 *   <li><b>Field bounds</b>, walking the record by its schema, so no field of any contract is
 *       unbounded: identifiers 1–{@link InputBounds#maxIdLength} characters, other strings,
 *       map keys, lists and maps bounded, every number finite (no NaN, no infinity) and inside its range
 *       (a node's GPUs in [1, {@link InputBounds#maxGpusPerNode}], a GPU index below it, a share
 *       in (0, 1], a utilisation in [0, 100] …), every time on or after
 *       {@link InputBounds#earliest}.
 *   <li><b>Event time</b>: the record's event-time field at most {@link InputBounds#maxLead}
 *       after the record's Kafka timestamp (and, if set, at most {@link InputBounds#maxAge}
 *       before it); other times at most {@link InputBounds#maxHorizon} ahead.
 *   <li><b>Record rules</b>: a submission as the core's {@link SubmissionCheck} has it,
 *       {@code gpus[]} consistent with {@code gpuCount}, a holiday's key its date, a directory
 *       entry's channels, zone, quiet hours and webhook scheme, and the decision-topic checks
 *       the single writers need (a verdict's finite usage, a reservation's window …).
 * </ol>
 *
 * <p>Checks that need state (a lifecycle fact about a job never submitted, an event time ahead
 * of the cluster clock a writer holds) are the writers' own; they can call {@link #timeProblem}
 * with their clock. A tombstone (null value) is a deletion only where {@link #tombstonesAllowed}
 * says so; everywhere else, {@code cluster.inventory} included, it is refused: a node leaves with
 * a {@code LEFT} event, never a tombstone.
 */
public final class EventValidator {

  /**
   * Topics whose null values delete the key's entry (compacted directories and calendars, the
   * notifier's join state, the executor's open jobs).
   */
  public static final Set<String> TOMBSTONE_TOPICS = Set.of("notify.directory",
      "forecast.holidays", "placement.queue", "notices.joins", "executor.jobs");

  /** Fields holding the event time of their record (the fact's own time). */
  /** Bound of every CPU (millicores), memory (bytes) and extended quantity (ADR 0030): 2^62. */
  static final double MAX_RESOURCE_QUANTITY = 0x1p62;

  private static final Map<String, String> EVENT_TIME = Map.of(
      "JobSubmitted", "submittedAt",
      "JobLifecycle", "occurredAt",
      "NodeInventory", "observedAt",
      "GpuSample", "sampledAt",
      "GpuSampleBatch", "sampledAt",
      "ClockTick", "time",
      "QuotaConfigDocument", "publishedAt",
      "Holiday", "declaredAt",
      "NotifyPreference", "updatedAt");

  /** String fields that are identifiers or names (bounded by maxIdLength). */
  private static final Set<String> ID_FIELDS = Set.of("cluster", "tenant", "team", "user",
      "gpuModel", "model", "version", "accessSwitch", "aggregationSwitch", "coreSwitch",
      "namespace", "pod", "container", "uuid", "locale", "zoneId", "author", "date", "name",
      "quietStart", "quietEnd", "email", "queuePath", "service", "tier", "currency");

  /** Identifier fields that must not be blank, per record. */
  private static final Map<String, List<String>> REQUIRED = Map.of(
      "JobLifecycle", List.of("jobId"),
      "NodeInventory", List.of("nodeId"),
      "GpuSample", List.of("gpuId"),
      "GpuSampleBatch", List.of("nodeId"),
      "GpuReading", List.of("gpuId"),
      "ClockTick", List.of("cluster"),
      "QuotaConfigDocument", List.of("version", "document"),
      "Holiday", List.of("date", "name"),
      "NotifyPreference", List.of("userId"),
      "GpuAssignment", List.of("nodeId"));

  private static final Pattern LOCALE = Pattern.compile("[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,4}");
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+");
  private static final DateTimeFormatter HH_MM = DateTimeFormatter.ofPattern("HH:mm");

  private final InputBounds bounds;
  private final SubmissionCheck submissions;
  private final WebhookTargets.Resolver hosts;

  /** The check without name lookups (webhooks: IP literals and localhost are checked). */
  public EventValidator(InputBounds bounds) {
    this(bounds, WebhookTargets.LITERALS);
  }

  /**
   * @param bounds the bounds in force
   * @param hosts how a webhook's host name is looked up (the notifier: DNS)
   */
  public EventValidator(InputBounds bounds, WebhookTargets.Resolver hosts) {
    this.bounds = bounds;
    this.submissions = new SubmissionCheck(bounds.submissions());
    this.hosts = hosts;
  }

  /** The bounds in force. */
  public InputBounds bounds() {
    return bounds;
  }

  /** Whether a null value on {@code topic} is a deletion (see {@link #TOMBSTONE_TOPICS}). */
  public static boolean tombstonesAllowed(String topic) {
    return TOMBSTONE_TOPICS.contains(base(topic));
  }

  /**
   * Why a tombstone (null value) read from {@code topic} cannot be used, or {@code null} when it
   * deletes the entry of its key.
   */
  public String tombstoneProblem(String topic, byte[] key) {
    String t = base(topic);
    if (!TOMBSTONE_TOPICS.contains(t)) {
      return "cluster.inventory".equals(t)
          ? "a tombstone (null value) is not an inventory event: a node leaves with change LEFT"
          : "empty record (null value): " + t + " has no deletions";
    }
    if (key == null || key.length == 0) {
      return "a tombstone without a key deletes nothing";
    }
    if ("forecast.holidays".equals(t)) {
      return holidayKeyProblem(key, null);
    }
    return null;
  }

  /**
   * Why {@code event}, read from {@code topic} with {@code key} and Kafka timestamp
   * {@code recordTimestamp} (negative when unknown), cannot be used, or {@code null}.
   */
  public String problem(String topic, byte[] key, Object event, long recordTimestamp) {
    if (event == null) {
      return tombstoneProblem(topic, key);
    }
    if (!(event instanceof IndexedRecord record)) {
      return "not a Tideline event: " + event.getClass().getName();
    }
    List<String> problems = new ArrayList<>();
    Instant reference = recordTimestamp >= 0 ? Instant.ofEpochMilli(recordTimestamp) : null;
    walk(record, record.getSchema().getName(), "", reference, problems);
    if (problems.size() < 5) {
      recordRules(topic, key, event, problems);
    }
    return problems.isEmpty() ? null : subject(event) + ": " + String.join("; ", problems);
  }

  /** The same, for an event that must be of type {@code expected}. */
  public String problem(Class<?> expected, String topic, byte[] key, Object event,
      long recordTimestamp) {
    if (event != null && !expected.isInstance(event)) {
      return "expected a " + expected.getSimpleName() + ", got " + event.getClass().getName();
    }
    return problem(topic, key, event, recordTimestamp);
  }

  /**
   * Why an event time {@code t} is unusable against the clock {@code reference} (a record's
   * Kafka timestamp here; a writer may pass its cluster clock), or {@code null}: before
   * {@link InputBounds#earliest}, more than {@link InputBounds#maxLead} after the reference, or
   * (when {@link InputBounds#maxAge} is positive) more than that before it.
   */
  public String timeProblem(Instant t, Instant reference) {
    if (t.isBefore(bounds.earliest())) {
      return "is " + t + ", before " + bounds.earliest();
    }
    if (reference != null) {
      if (t.isAfter(reference.plus(bounds.maxLead()))) {
        return "is " + t + ", more than " + human(bounds.maxLead()) + " after the record's time "
            + reference + " (tideline.intake.max-lead)";
      }
      if (bounds.maxAge().compareTo(Duration.ZERO) > 0
          && t.isBefore(reference.minus(bounds.maxAge()))) {
        return "is " + t + ", more than " + human(bounds.maxAge()) + " before the record's time "
            + reference + " (tideline.intake.max-age)";
      }
    }
    return null;
  }

  /**
   * The bound a string field is held to: identifiers {@link InputBounds#maxIdLength}, the quota
   * document {@link InputBounds#maxDocumentLength}, URLs {@link InputBounds#maxUrlLength}, the
   * rest {@link InputBounds#maxTextLength}.
   */
  public int maxLength(String field) {
    if (field.endsWith("Id") || ID_FIELDS.contains(field)) {
      return bounds.maxIdLength();
    }
    if ("document".equals(field)) {
      return bounds.maxDocumentLength();
    }
    if (field.endsWith("Url")) {
      return bounds.maxUrlLength();
    }
    return bounds.maxTextLength();
  }

  /**
   * Why the string {@code value} of field {@code field} of record {@code record} is unusable, or
   * {@code null}: too long, or blank where an identifier is required. Also what the forecaster's
   * telemetry projection checks for the fields it reads.
   */
  public String stringProblem(String record, String field, CharSequence value) {
    if (value == null) {
      return null;
    }
    int max = maxLength(field);
    if (value.length() > max) {
      return field + " has " + value.length() + " characters, at most " + max + " allowed ("
          + Clip.of(value) + ")";
    }
    if (isRequired(record, field) && value.toString().isBlank()) {
      return field + " is required";
    }
    return null;
  }

  /** Why a number of a field is unusable (NaN, infinite, outside its range), or {@code null}. */
  public String numberProblem(String record, String field, Number value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Double || value instanceof Float) {
      double d = value.doubleValue();
      if (!Double.isFinite(d)) {
        return field + " must be a finite number, got " + d;
      }
    }
    double[] range = range(record, field);
    if (range != null && !(value.doubleValue() >= range[0] && value.doubleValue() <= range[1])) {
      return field + " must be in [" + fmt(range[0]) + ", " + fmt(range[1]) + "], got " + value;
    }
    if (range == null && ("share".equals(field))
        && !(value.doubleValue() > 0 && value.doubleValue() <= 1)) {
      return field + " must be in (0, 1], got " + value;
    }
    return null;
  }

  // ---- 1. field bounds ------------------------------------------------------------------------

  private void walk(IndexedRecord r, String recordName, String prefix, Instant reference,
      List<String> out) {
    String eventTime = prefix.isEmpty() ? EVENT_TIME.get(recordName) : null;
    for (Schema.Field f : r.getSchema().getFields()) {
      Object v = r.get(f.pos());
      String path = prefix + f.name();
      value(recordName, f.name(), path, unionBranch(f.schema(), v), v, reference,
          f.name().equals(eventTime), out);
      if (out.size() >= 5) {
        return; // enough to say why; a hostile record could list thousands
      }
    }
    for (String required : REQUIRED.getOrDefault(recordName, List.of())) {
      Schema.Field f = r.getSchema().getField(required);
      if (f != null) {
        Object v = r.get(f.pos());
        if (v == null || v.toString().isBlank()) {
          out.add(prefix + required + " is required");
        }
      }
    }
  }

  private void value(String record, String field, String path, Schema schema, Object v,
      Instant reference, boolean eventTime, List<String> out) {
    if (v == null) {
      return;
    }
    switch (schema.getType()) {
      case STRING -> {
        String p = stringProblem(record, field, (CharSequence) v);
        if (p != null) {
          out.add(prefixed(path, field, p));
        }
      }
      case INT, LONG, DOUBLE, FLOAT -> {
        if (v instanceof Instant t) {
          time(path, t, reference, eventTime, out);
        } else if (schema.getLogicalType() instanceof LogicalTypes.TimestampMillis
            && v instanceof Long l) {
          time(path, Instant.ofEpochMilli(l), reference, eventTime, out);
        } else if (v instanceof Number n) {
          String p = numberProblem(record, field, n);
          if (p != null) {
            out.add(prefixed(path, field, p));
          }
        }
      }
      case RECORD -> walk((IndexedRecord) v, schema.getName(), path + ".", reference, out);
      case ARRAY -> {
        Collection<?> items = (Collection<?>) v;
        if (items.size() > bounds.maxListSize()) {
          out.add(path + " has " + items.size() + " entries, at most " + bounds.maxListSize());
          return;
        }
        int i = 0;
        for (Object item : items) {
          value(record, field, path + "[" + i++ + "]", unionBranch(schema.getElementType(), item),
              item, reference, false, out);
          if (out.size() >= 5) {
            return;
          }
        }
      }
      case MAP -> {
        Map<?, ?> m = (Map<?, ?>) v;
        if (m.size() > bounds.maxListSize()) {
          out.add(path + " has " + m.size() + " entries, at most " + bounds.maxListSize());
          return;
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
          String k = String.valueOf(e.getKey());
          if (k.length() > bounds.maxTextLength()) {
            out.add(path + " has a key of " + k.length() + " characters (" + Clip.of(k) + ")");
            return;
          }
          value(record, field, path + "[" + Clip.of(k) + "]",
              unionBranch(schema.getValueType(), e.getValue()), e.getValue(), reference, false,
              out);
        }
      }
      case BYTES -> {
        if (v instanceof ByteBuffer b && b.remaining() > bounds.maxDocumentLength()) {
          out.add(path + " has " + b.remaining() + " bytes, at most " + bounds.maxDocumentLength());
        }
      }
      default -> {
        // enums, booleans, fixed: the schema bounds them
      }
    }
  }

  private void time(String path, Instant t, Instant reference, boolean eventTime,
      List<String> out) {
    String p;
    if (eventTime) {
      p = timeProblem(t, reference);
    } else if (t.isBefore(bounds.earliest())) {
      p = "is " + t + ", before " + bounds.earliest();
    } else if (reference != null && t.isAfter(reference.plus(bounds.maxHorizon()))) {
      p = "is " + t + ", more than " + human(bounds.maxHorizon()) + " after the record's time "
          + reference + " (tideline.intake.max-horizon)";
    } else {
      p = null;
    }
    if (p != null) {
      out.add(path + " " + p);
    }
  }

  /** The value bounds of a numeric field, or null when only finiteness applies. */
  private double[] range(String record, String field) {
    int gpusPerNode = bounds.maxGpusPerNode();
    return switch (record + "." + field) {
      case "NodeInventory.gpuCount" -> new double[] {1, gpusPerNode};
      case "NodeInventory.gpuMemoryMiB" -> new double[] {0, bounds.maxGpuMemoryMiB()};
      case "GpuInfo.index", "GpuInfo.nvlinkIsland", "GpuSample.gpuIndex", "GpuReading.gpuIndex",
          "GpuAssignment.gpuIndex" -> new double[] {0, gpusPerNode - 1};
      case "GpuSample.utilizationPct", "GpuReading.utilizationPct" -> new double[] {0, 100};
      case "GpuSample.memoryUsedMiB", "GpuSample.memoryFreeMiB", "GpuReading.memoryUsedMiB",
          "GpuReading.memoryFreeMiB" -> new double[] {0, bounds.maxGpuMemoryMiB()};
      case "GpuSample.powerWatts", "GpuReading.powerWatts" -> new double[] {0, 100_000};
      case "GpuSample.temperatureC", "GpuReading.temperatureC" -> new double[] {-273.15, 1_000};
      case "JobLifecycle.progress" -> new double[] {0, 1};
      case "JobLifecycle.throughput", "JobSubmitted.dataCacheGb",
          "CheckpointProfile.stateSizeGb" -> new double[] {0, Double.MAX_VALUE};
      case "JobSubmitted.expectedDurationSeconds" -> new double[] {0, 10L * 366 * 86_400};
      case "CheckpointProfile.writeShards" -> new double[] {1, bounds.submissions().maxGangSize()};
      case "CheckpointProfile.intervalSeconds" -> new double[] {1, 366 * 86_400};
      case "ClockTick.intervalMillis" -> new double[] {1, 86_400_000};
      case "ClockTick.sequence" -> new double[] {0, Long.MAX_VALUE};
      case "QuotaVerdict.fairShareUsage" -> new double[] {0, Double.MAX_VALUE};
      case "CapacityReservation.gpus" -> new double[] {0, 1_000_000};
      case "SlotForecast.historicalPeak" -> new double[] {0, Double.MAX_VALUE};
      case "QuotaReclaim.currentGpus", "QuotaReclaim.recommendedGpus" ->
          new double[] {0, Integer.MAX_VALUE};
      case "PreemptionRequest.ledgerVersion" -> new double[] {0, Long.MAX_VALUE};
      case "ResourceQuantities.cpuMillis", "ResourceQuantities.memoryBytes",
          "ResourceQuantities.extended" -> new double[] {0, MAX_RESOURCE_QUANTITY};
      default -> null;
    };
  }

  // ---- 3. record rules ------------------------------------------------------------------------

  private void recordRules(String topic, byte[] key, Object event, List<String> out) {
    if (event instanceof JobSubmitted j) {
      if (!out.isEmpty() && out.stream().anyMatch(p -> p.contains("perWorker"))) {
        return; // resources the core cannot hold (negative): said above, nothing more to check
      }
      for (Violation v : submissions.violations(JobRequests.fromEvent(j))) {
        out.add(v.toString());
      }
      if (j.getContacts() != null) {
        emailRule("contacts.email", j.getContacts().getEmail(), out);
        localeRule("contacts.locale", j.getContacts().getLocale(), out);
      }
    } else if (event instanceof NodeInventory n) {
      List<GpuInfo> gpus = n.getGpus();
      if (!gpus.isEmpty() && gpus.size() != n.getGpuCount()) {
        out.add("gpus lists " + gpus.size() + " GPUs but gpuCount is " + n.getGpuCount());
      }
      Set<Integer> seen = new HashSet<>();
      for (GpuInfo g : gpus) {
        if (g.getIndex() >= n.getGpuCount()) {
          out.add("gpus has index " + g.getIndex() + ", outside [0, gpuCount " + n.getGpuCount()
              + ")");
          break;
        }
        if (!seen.add(g.getIndex())) {
          out.add("gpus lists index " + g.getIndex() + " twice");
          break;
        }
      }
    } else if (event instanceof GpuSampleBatch b) {
      batchRules(b, out);
    } else if (event instanceof Holiday h) {
      String p = holidayKeyProblem(key, h);
      if (p != null) {
        out.add(p);
      }
    } else if (event instanceof NotifyPreference p) {
      directoryRules(key, p, out);
    } else if (event instanceof CapacityReservation c) {
      if (c.getValidUntil().isBefore(c.getValidFrom())) {
        out.add("validUntil is before validFrom");
      }
    } else if (event instanceof PreemptionRequest r) {
      if (r.getRequestId().isBlank() || r.getPreemptorJobId().isBlank()) {
        out.add("a preemption request needs a request id and a preemptor job id");
      } else if (r.getShape() == null || r.getShape().getGpuCount() <= 0) {
        out.add("the shape needs at least one GPU");
      }
    } else if (event instanceof PlacementDecision d) {
      for (var a : d.getAssignments()) {
        if (!(a.getShare() > 0) || a.getShare() > 1) {
          out.add("assignment " + Clip.of(a.getNodeId()) + "/" + a.getGpuIndex() + " with share "
              + a.getShare() + " outside (0, 1]");
          break;
        }
      }
      workerRules(d.getWorkers(), d.getJobId(), out);
    } else if (event instanceof io.tideline.events.LedgerChange c) {
      if (c.getVersion() <= 0) {
        out.add("version must be positive, got " + c.getVersion());
      } else if (c.getChange() instanceof io.tideline.events.LedgerBound b) {
        for (var a : b.getAssignments()) {
          if (!(a.getShare() > 0) || a.getShare() > 1) {
            out.add("assignment " + Clip.of(a.getNodeId()) + "/" + a.getGpuIndex() + " of "
                + Clip.of(b.getJobId()) + " with share " + a.getShare() + " outside (0, 1]");
            break;
          }
        }
        workerRules(b.getWorkers(), b.getJobId(), out);
      }
    } else if (event instanceof QuotaVerdict || event instanceof QuotaReclaim
        || event instanceof SlotForecast) {
      // their numeric ranges are field bounds (range())
    }
  }

  /** A GPU-less job's pods per node (ADR 0030): named nodes, at least one pod each. */
  private static void workerRules(java.util.Map<String, Integer> workers, String jobId,
      List<String> out) {
    if (workers == null) {
      return;
    }
    for (var e : new java.util.TreeMap<>(workers).entrySet()) {
      if (e.getKey().isBlank() || e.getValue() == null || e.getValue() <= 0) {
        out.add("workers of " + Clip.of(jobId) + ": node '" + Clip.of(e.getKey())
            + "' must be named and hold at least one pod, got " + e.getValue());
        break;
      }
    }
  }

  private void directoryRules(byte[] key, NotifyPreference p, List<String> out) {
    if (key != null && !new String(key, StandardCharsets.UTF_8).equals(p.getUserId())) {
      out.add("the key '" + Clip.of(new String(key, StandardCharsets.UTF_8))
          + "' is not the entry's userId '" + Clip.of(p.getUserId()) + "'");
    }
    for (String ch : p.getChannels()) {
      if (!bounds.notifyChannels().contains(ch.trim().toUpperCase(Locale.ROOT))) {
        out.add("channels: unknown channel '" + Clip.of(ch) + "' (known: "
            + String.join(", ", new java.util.TreeSet<>(bounds.notifyChannels())) + ")");
        break;
      }
    }
    emailRule("email", p.getEmail(), out);
    webhookRule("slackWebhookUrl", p.getSlackWebhookUrl(), out);
    localeRule("locale", p.getLocale(), out);
    try {
      ZoneId.of(p.getZoneId());
    } catch (DateTimeException e) {
      out.add("zoneId '" + Clip.of(p.getZoneId()) + "' is not a time zone (e.g. Europe/Paris)");
    }
    boolean start = p.getQuietStart() != null && !p.getQuietStart().isBlank();
    boolean end = p.getQuietEnd() != null && !p.getQuietEnd().isBlank();
    if (start != end) {
      out.add("quietStart and quietEnd go together: give both or neither");
    }
    hhmm("quietStart", p.getQuietStart(), out);
    hhmm("quietEnd", p.getQuietEnd(), out);
  }

  /** Why {@code url} is no webhook we may post to, or {@code null} (null url: none given). */
  public String webhookProblem(String url) {
    if (url == null || url.isBlank()) {
      return null;
    }
    if (url.length() > bounds.maxUrlLength()) {
      return "has " + url.length() + " characters, at most " + bounds.maxUrlLength();
    }
    URI u;
    try {
      u = new URI(url.trim());
    } catch (URISyntaxException e) {
      return "'" + Clip.of(url) + "' is not a URL: " + e.getReason();
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!bounds.webhookSchemes().contains(scheme)) {
      return "'" + Clip.of(url) + "': scheme '" + scheme + "' is not allowed (allowed: "
          + String.join(", ", new java.util.TreeSet<>(bounds.webhookSchemes()))
          + "; tideline.intake.webhook-schemes)";
    }
    if (u.getHost() == null || u.getHost().isBlank()) {
      return "'" + Clip.of(url) + "' names no host";
    }
    if (u.getUserInfo() != null) {
      return "'" + Clip.of(url) + "' carries credentials in the URL";
    }
    String target = WebhookTargets.problem(scheme, u.getHost(), bounds.webhookInternalHosts(),
        hosts);
    return target == null ? null : "'" + Clip.of(url) + "': " + target;
  }

  private void webhookRule(String field, String url, List<String> out) {
    String p = webhookProblem(url);
    if (p != null) {
      out.add(field + " " + p);
    }
  }

  private static void emailRule(String field, String email, List<String> out) {
    if (email != null && !email.isBlank() && !EMAIL.matcher(email.trim()).matches()) {
      out.add(field + " '" + Clip.of(email) + "' is not an e-mail address");
    }
  }

  private static void localeRule(String field, String locale, List<String> out) {
    if (locale != null && !locale.isBlank() && !LOCALE.matcher(locale.trim()).matches()) {
      out.add(field + " '" + Clip.of(locale) + "' is not a language tag (e.g. en, zh-CN)");
    }
  }

  private static void hhmm(String field, String value, List<String> out) {
    if (value == null || value.isBlank()) {
      return;
    }
    try {
      LocalTime.parse(value.trim(), HH_MM);
    } catch (DateTimeParseException e) {
      out.add(field + " '" + Clip.of(value) + "' is not a local time HH:mm (00:00–23:59)");
    }
  }

  /**
   * A node's scrape (ADR 0040): at least one GPU, at most a node's ({@code max-gpus-per-node}),
   * each GPU once, by id and by index (the indexes' range is a field bound).
   */
  private void batchRules(GpuSampleBatch b, List<String> out) {
    List<GpuReading> gpus = b.getGpus();
    String p = batchProblem(gpus.size(), i -> gpus.get(i).getGpuId(),
        i -> gpus.get(i).getGpuIndex());
    if (p != null) {
      out.add(p);
    }
  }

  /**
   * Why a node's scrape of {@code size} GPUs cannot be used, or {@code null} (ADR 0040): at least
   * one GPU, at most {@code max-gpus-per-node}, each GPU id and each index once. Also what the
   * forecaster's batch projection checks.
   *
   * @param gpuId the id of the i-th GPU
   * @param gpuIndex the index of the i-th GPU
   */
  public String batchProblem(int size, IntFunction<String> gpuId, IntUnaryOperator gpuIndex) {
    if (size == 0) {
      return "gpus is empty: a scrape reports at least one GPU";
    }
    if (size > bounds.maxGpusPerNode()) {
      return "gpus lists " + size + " GPUs, a node has at most " + bounds.maxGpusPerNode()
          + " (tideline.intake.max-gpus-per-node)";
    }
    Set<String> ids = new HashSet<>();
    Set<Integer> indexes = new HashSet<>();
    for (int i = 0; i < size; i++) {
      if (!ids.add(gpuId.apply(i))) {
        return "gpus lists GPU " + Clip.of(gpuId.apply(i)) + " twice";
      }
      if (!indexes.add(gpuIndex.applyAsInt(i))) {
        return "gpus lists index " + gpuIndex.applyAsInt(i) + " twice";
      }
    }
    return null;
  }

  private String holidayKeyProblem(byte[] key, Holiday h) {
    if (key == null) {
      return "no key: a holiday's key must be its ISO date (yyyy-MM-dd)";
    }
    String date = new String(key, StandardCharsets.UTF_8);
    LocalDate d;
    try {
      d = LocalDate.parse(date);
    } catch (DateTimeParseException e) {
      return "key '" + Clip.of(date) + "' is not an ISO date (yyyy-MM-dd)";
    }
    if (d.atStartOfDay().toInstant(java.time.ZoneOffset.UTC).isBefore(bounds.earliest())) {
      return "date " + date + " is before " + bounds.earliest();
    }
    if (d.getYear() > 9999 - 1) {
      return "date " + date + " is out of range";
    }
    if (h != null && !date.equals(h.getDate())) {
      return "holiday date '" + Clip.of(h.getDate()) + "' differs from its key '" + date + "'";
    }
    return null;
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static boolean isRequired(String record, String field) {
    return REQUIRED.getOrDefault(record, List.of()).contains(field);
  }

  /** The branch of a (nullable) union a value belongs to; the schema itself when no union. */
  private static Schema unionBranch(Schema s, Object v) {
    if (s.getType() != Schema.Type.UNION) {
      return s;
    }
    for (Schema b : s.getTypes()) {
      if (b.getType() != Schema.Type.NULL) {
        return b; // our unions are ["null", T]
      }
    }
    return s;
  }

  private static String prefixed(String path, String field, String problem) {
    return problem.startsWith(field + " ") ? path + problem.substring(field.length()) : problem;
  }

  /** Names the event in messages: its type and its main id, clipped. */
  private static String subject(Object event) {
    IndexedRecord r = (IndexedRecord) event;
    String type = r.getSchema().getName();
    for (String idField : List.of("jobId", "nodeId", "gpuId", "userId", "cluster", "version",
        "date", "decisionId", "requestId", "reservationId", "serviceId")) {
      Schema.Field f = r.getSchema().getField(idField);
      if (f != null && r.get(f.pos()) != null) {
        return type + " " + Clip.of(r.get(f.pos()).toString());
      }
    }
    return type;
  }

  private static String fmt(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d)
        : d >= Double.MAX_VALUE ? "∞" : Double.toString(d);
  }

  static String human(Duration d) {
    return d.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /** The catalogued topic a (possibly test-suffixed) topic name stands for. */
  private static String base(String topic) {
    return topic == null ? "" : topic;
  }
}
