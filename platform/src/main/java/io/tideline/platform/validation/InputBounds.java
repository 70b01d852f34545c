package io.tideline.platform.validation;

import io.tideline.core.admission.SubmissionLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every bound a record must respect before any Tideline service uses it, whoever reads it: the one
 * list ({@code tideline.intake.*} in {@link io.tideline.platform.intake.IntakeConfig}, these
 * defaults otherwise). The contracts' {@code .avsc} docs name the same bounds field by field.
 *
 * @param maxIdLength identifiers (job, node, GPU, user, tenant, team, service, cluster, model …):
 *     1 to this many characters (253, the longest Kubernetes object name)
 * @param maxTextLength any other string (messages, reasons, rule traces) and any map key: at most
 *     this many characters (16,384)
 * @param maxDocumentLength a quota definition document: at most this many characters (1 MiB)
 * @param maxUrlLength a URL (webhooks): at most this many characters
 * @param maxListSize any array or map: at most this many entries
 * @param maxGpusPerNode what one node can hold: a node's {@code gpuCount}, and every GPU index,
 *     is below it (64; the largest servers carry 16)
 * @param maxGpuMemoryMiB a GPU's memory: in [0, this] MiB (16 TiB)
 * @param submissions bounds on a job's resources (GPUs, share, gang)
 * @param earliest no time field (event time, deadline, checkpoint …) may be before this instant
 *     (2000-01-01T00:00:00Z): epoch 0, year 1 and negative times are refused
 * @param maxLead a record's event time may be at most this far after the record's own Kafka
 *     timestamp (10 min), which the broker bounds to its own clock
 *     ({@code log.message.timestamp.after.max.ms}, 1 h): a record stamped in the future is
 *     dead-lettered and never moves a clock
 * @param maxAge a record's event time may be at most this far before its Kafka timestamp; zero
 *     or negative = no bound besides {@code earliest} (the default: late facts move no clock)
 * @param maxHorizon any other time field (deadline, validity end, holiday date) at most this far
 *     after the record's Kafka timestamp (731 days)
 * @param webhookSchemes URL schemes a webhook may use (https); any other scheme listed (http) only
 *     for a host in {@code webhookInternalHosts}
 * @param notifyChannels channel names a directory entry may list (SLACK, EMAIL)
 * @param webhookInternalHosts hosts a webhook may name although they are (or resolve to) a
 *     loopback, link-local, private, unspecified or multicast address (none: the notifier must
 *     not become a relay into the network it runs in; a local demo's sink on 127.0.0.1 is listed)
 */
public record InputBounds(
    int maxIdLength,
    int maxTextLength,
    int maxDocumentLength,
    int maxUrlLength,
    int maxListSize,
    int maxGpusPerNode,
    int maxGpuMemoryMiB,
    SubmissionLimits submissions,
    Instant earliest,
    Duration maxLead,
    Duration maxAge,
    Duration maxHorizon,
    Set<String> webhookSchemes,
    Set<String> notifyChannels,
    Set<String> webhookInternalHosts) {

  /** The documented defaults. */
  public static final InputBounds DEFAULTS = new InputBounds(253, 16_384, 1 << 20, 2048, 10_000,
      64, 16 << 20, SubmissionLimits.DEFAULTS, Instant.parse("2000-01-01T00:00:00Z"),
      Duration.ofMinutes(10), Duration.ZERO, Duration.ofDays(731), Set.of("https"),
      Set.of("SLACK", "EMAIL"), Set.of());

  public InputBounds {
    webhookSchemes = webhookSchemes.stream().map(s -> s.trim().toLowerCase(Locale.ROOT))
        .collect(Collectors.toUnmodifiableSet());
    notifyChannels = notifyChannels.stream().map(s -> s.trim().toUpperCase(Locale.ROOT))
        .collect(Collectors.toUnmodifiableSet());
    webhookInternalHosts = webhookInternalHosts.stream().map(InputBounds::host)
        .filter(h -> !h.isEmpty()).collect(Collectors.toUnmodifiableSet());
    if (maxIdLength < 1 || maxTextLength < 1 || maxListSize < 1 || maxGpusPerNode < 1) {
      throw new IllegalArgumentException("bounds must be positive: " + maxIdLength + ", "
          + maxTextLength + ", " + maxListSize + ", " + maxGpusPerNode);
    }
  }

  /** These bounds with other submission limits. */
  public InputBounds withSubmissions(SubmissionLimits limits) {
    return new InputBounds(maxIdLength, maxTextLength, maxDocumentLength, maxUrlLength,
        maxListSize, maxGpusPerNode, maxGpuMemoryMiB, limits, earliest, maxLead, maxAge,
        maxHorizon, webhookSchemes, notifyChannels, webhookInternalHosts);
  }

  /** These bounds with other webhook schemes (tests allow http for a local sink). */
  public InputBounds withWebhookSchemes(List<String> schemes) {
    return new InputBounds(maxIdLength, maxTextLength, maxDocumentLength, maxUrlLength,
        maxListSize, maxGpusPerNode, maxGpuMemoryMiB, submissions, earliest, maxLead, maxAge,
        maxHorizon, Set.copyOf(schemes), notifyChannels, webhookInternalHosts);
  }

  /** These bounds with another maximum of GPUs per node. */
  public InputBounds withMaxGpusPerNode(int max) {
    return new InputBounds(maxIdLength, maxTextLength, maxDocumentLength, maxUrlLength,
        maxListSize, max, maxGpuMemoryMiB, submissions, earliest, maxLead, maxAge, maxHorizon,
        webhookSchemes, notifyChannels, webhookInternalHosts);
  }

  /** These bounds with other hosts a webhook may name inside the network (tests' local sinks). */
  public InputBounds withWebhookInternalHosts(List<String> hosts) {
    return new InputBounds(maxIdLength, maxTextLength, maxDocumentLength, maxUrlLength,
        maxListSize, maxGpusPerNode, maxGpuMemoryMiB, submissions, earliest, maxLead, maxAge,
        maxHorizon, webhookSchemes, notifyChannels, Set.copyOf(hosts));
  }

  /** A host as compared: lower case, without an IPv6 literal's brackets. */
  public static String host(String host) {
    String h = host == null ? "" : host.trim().toLowerCase(Locale.ROOT);
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }
}
