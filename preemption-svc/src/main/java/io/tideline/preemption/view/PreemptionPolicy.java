package io.tideline.preemption.view;

import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.preemption.PreemptionConfig;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Objects;

/**
 * Everything the preemption topology needs to decide, as one immutable value (the topology
 * factory is a pure function of it; tests build it without Quarkus). Defaults and requirement IDs
 * are documented on {@link io.tideline.preemption.PreemptionSettings}.
 *
 * @param defaultCluster cluster of inputs that carry none (submissions, verdicts, reservations,
 *     reclaims)
 * @param rules the preemption rules (W1, W4, P1–P6)
 * @param placement placement tunables, for the feasibility probe (the placer placement runs)
 * @param assumedWait P5: the wait a preemption avoids, when nothing better is known
 * @param reservationValueHours F2/P5: a starting reservation is worth this many hours of each
 *     GPU it lacks
 * @param offPeakStart P6: local start (UTC) of the nightly trough, for the retry hint
 * @param traceCandidatesMax most candidate lines written one by one into a decision's trace;
 *     further refusals are summarised per rule (keeps a 10,000-job decision well under the broker's
 *     message size)
 */
public record PreemptionPolicy(String defaultCluster, PreemptionConfig rules,
    PlacementConfig placement, Duration assumedWait, double reservationValueHours,
    LocalTime offPeakStart, int traceCandidatesMax) {

  public PreemptionPolicy {
    Objects.requireNonNull(defaultCluster, "defaultCluster");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(assumedWait, "assumedWait");
    Objects.requireNonNull(offPeakStart, "offPeakStart");
    if (traceCandidatesMax < 1) {
      throw new IllegalArgumentException("traceCandidatesMax must be at least 1");
    }
  }

  /** The documented defaults for {@code cluster}. */
  public static PreemptionPolicy defaults(String cluster) {
    return new PreemptionPolicy(cluster, PreemptionConfig.DEFAULTS, PlacementConfig.DEFAULTS,
        Duration.ofMinutes(30), 1.0, LocalTime.MIDNIGHT, 500);
  }
}
