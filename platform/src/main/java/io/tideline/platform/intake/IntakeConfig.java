package io.tideline.platform.intake;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tideline.core.admission.SubmissionLimits;
import io.tideline.platform.validation.InputBounds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Bounds on every input record ({@code tideline.intake.*}), the same for every service: the
 * defaults are {@link InputBounds#DEFAULTS} and the contracts' docs; submission limits default to
 * {@link SubmissionLimits#DEFAULTS} (4,096 GPUs per job, 0.05 of a GPU at least, gangs up to 4,096).
 */
@ConfigMapping(prefix = "tideline.intake")
public interface IntakeConfig {

  /** Largest gang the fleet accepts, in GPUs. */
  Optional<Integer> maxGpusPerJob();

  /** Smallest fraction of one GPU an instance may ask for. */
  Optional<Double> minGpuShare();

  /** Largest number of workers in one gang. */
  Optional<Integer> maxGangSize();

  /** Identifiers (job, node, user, tenant …): at most this many characters (a Kubernetes name). */
  @WithDefault("253")
  int maxIdLength();

  /** Any other string, and any map key: at most this many characters. */
  @WithDefault("16384")
  int maxTextLength();

  /** A quota definition document: at most this many characters. */
  @WithDefault("1048576")
  int maxDocumentLength();

  /** A URL: at most this many characters. */
  @WithDefault("2048")
  int maxUrlLength();

  /** Any list or map: at most this many entries. */
  @WithDefault("10000")
  int maxListSize();

  /** What one node can hold: its gpuCount and every GPU index are below this. */
  @WithDefault("64")
  int maxGpusPerNode();

  /** A GPU's memory, in MiB, at most. */
  @WithDefault("16777216")
  int maxGpuMemoryMiB();

  /** No time field may be before this instant (epoch 0, year 1, negative times refused). */
  @WithDefault("2000-01-01T00:00:00Z")
  Instant earliest();

  /** An event time at most this far after its record's Kafka timestamp. */
  @WithDefault("PT10M")
  Duration maxLead();

  /** An event time at most this far before its record's Kafka timestamp; 0 = no bound. */
  @WithDefault("PT0S")
  Duration maxAge();

  /** Other time fields (deadlines, validity ends) at most this far after the record's timestamp. */
  @WithDefault("P731D")
  Duration maxHorizon();

  /** URL schemes a webhook may use; a scheme other than https only for an internal host below. */
  @WithDefault("https")
  List<String> webhookSchemes();

  /**
   * Hosts a webhook may name although they are, or resolve to, a loopback, link-local, private,
   * unspecified or multicast address (none by default; the local demo lists its sink's 127.0.0.1).
   */
  Optional<List<String>> webhookInternalHosts();

  /** Channel names a directory entry may list. */
  @WithDefault("SLACK,EMAIL")
  List<String> notifyChannels();

  /** The submission limits in force. */
  default SubmissionLimits limits() {
    SubmissionLimits d = SubmissionLimits.DEFAULTS;
    return new SubmissionLimits(maxGpusPerJob().orElse(d.maxGpusPerJob()),
        minGpuShare().orElse(d.minGpuShare()), maxGangSize().orElse(d.maxGangSize()));
  }

  /** Every bound in force. */
  default InputBounds bounds() {
    return new InputBounds(maxIdLength(), maxTextLength(), maxDocumentLength(), maxUrlLength(),
        maxListSize(), maxGpusPerNode(), maxGpuMemoryMiB(), limits(), earliest(), maxLead(),
        maxAge(), maxHorizon(), Set.copyOf(webhookSchemes()), Set.copyOf(notifyChannels()),
        Set.copyOf(webhookInternalHosts().orElse(List.of())));
  }
}
