package io.tideline.platform.security;

import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.topics.TopicSpec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Who wrote a record, checked against who owns its topic (issue #18 point 5, ADR 0029). Every
 * Tideline producer stamps the header {@value #HEADER} with its identity ({@link ProducerStamp});
 * a consumer of a guarded topic refuses a record whose stamp is missing or names someone the
 * catalogue does not list as the topic's producer (the same {@code producer -> consumers} column
 * the ACL generator reads, through {@link Identity}: not a second list).
 *
 * <p>A header is not a signature: anyone who may write the topic may write any header. On a
 * secured cluster the ACLs are the enforcement (only the owner may write the topic at all); the
 * header is the defence where they are missing — an open broker, a misconfigured ACL.
 */
public final class Provenance {

  /** The header every Tideline producer stamps: its identity's user name. */
  public static final String HEADER = "tideline-producer";

  /**
   * The topics checked by default: the decision topics whose records move GPUs (each written by
   * one Tideline service whose producers the platform stamps), and {@code quota.config}, the
   * operators' quota document (the CLI's and the simulator's producers stamp it; only quota reads
   * it), so a forged document cannot change anyone's quota; and {@code jobs.lifecycle}, the
   * executor's facts (its {@code Outputs} and the simulator playing it stamp them), so a forged
   * {@code COMPLETED} frees no running job's GPUs.
   */
  public static final List<String> DEFAULT_GUARDED = List.of(
      TopicCatalogue.PREEMPTION_DECISIONS, TopicCatalogue.PLACEMENT_DECISIONS,
      TopicCatalogue.QUOTA_RECLAIMS, TopicCatalogue.EVICTIONS, "quota.config",
      TopicCatalogue.JOBS_LIFECYCLE);

  /** The default: {@link #DEFAULT_GUARDED}. */
  public static final Provenance DEFAULT = new Provenance(DEFAULT_GUARDED);

  private final Set<String> guarded;

  /** A check of the topics named in {@code guarded} (each must be catalogued). */
  public Provenance(List<String> guarded) {
    Set<String> g = new LinkedHashSet<>();
    for (String t : guarded) {
      TopicCatalogue.get(t); // fails on a topic the catalogue does not know
      g.add(t);
    }
    this.guarded = Set.copyOf(g);
  }

  /** Whether records of {@code topic} are checked. */
  public boolean guards(String topic) {
    return guarded.contains(topic);
  }

  /** The identities (user names) the catalogue lists as producers of {@code topic}. */
  public static Set<String> owners(String topic) {
    TopicSpec spec = TopicCatalogue.get(topic);
    Set<String> out = new LinkedHashSet<>();
    for (String word : Flow.parse(spec.flow(), topic).producers()) {
      for (Identity i : Identity.named(word, topic)) {
        out.add(i.user());
      }
    }
    return out;
  }

  /**
   * Why a record of {@code topic} stamped {@code producer} (null: no stamp) must be refused, or
   * {@code null} when it may be used (an unguarded topic, or the stamp names an owner).
   */
  public String refusal(String topic, String producer) {
    if (!guards(topic)) {
      return null;
    }
    Set<String> owners = owners(topic);
    if (producer == null) {
      return "no " + HEADER + " header: " + topic + " is written only by "
          + String.join(" or ", owners) + " (expected " + String.join("|", owners)
          + ", found none)";
    }
    if (!owners.contains(producer)) {
      return "written by " + producer + ", but " + topic + " is written only by "
          + String.join(" or ", owners) + " (expected " + String.join("|", owners)
          + ", found " + producer + ")";
    }
    return null;
  }

  /** As {@link #refusal(String, String)} with the stamp read from {@code headers}. */
  public String refusal(String topic, Headers headers) {
    return refusal(topic, stamp(headers));
  }

  /** Headers carrying the stamp of {@code producer} (none for {@code null}): tools and tests. */
  public static Headers stampOf(String producer) {
    RecordHeaders h = new RecordHeaders();
    if (producer != null) {
      h.add(HEADER, producer.getBytes(StandardCharsets.UTF_8));
    }
    return h;
  }

  /** The first owner of {@code topic}: who a scenario writes its records as. */
  public static String ownerOf(String topic) {
    return owners(topic).iterator().next();
  }

  /** The last {@value #HEADER} header's value, or {@code null}. */
  public static String stamp(Headers headers) {
    if (headers == null) {
      return null;
    }
    Header h = headers.lastHeader(HEADER);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
