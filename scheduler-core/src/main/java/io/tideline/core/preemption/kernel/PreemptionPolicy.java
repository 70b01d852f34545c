package io.tideline.core.preemption.kernel;

import io.tideline.core.placement.PlacementConfig;
import io.tideline.core.preemption.PreemptionConfig;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Objects;

/**
 * Everything the preemption kernel decides with. Defaults are documented on {@link #defaults};
 * preemption-svc maps its typed configuration onto this, the twin builds it per policy.
 *
 * @param cluster the cluster this view follows
 * @param rules the preemption rules (W1, W4, P1–P6)
 * @param placement the placer's tunables, for the feasibility probe (placement's own placer)
 * @param assumedWait P5: the wait a preemption avoids when placement's request carries no
 *     estimate. Default 30 min
 * @param reservationValueHours F2/P5: a starting reservation is worth this many hours of each
 *     GPU it lacks. Default 1
 * @param offPeakStart P6: local start (UTC) of the nightly trough, for the retry hint. Default
 *     00:00
 * @param traceCandidatesMax refused candidates, and eligible ones not taken, written one by one
 *     into a decision's trace (up to this many of each); the rest are counted per rule (a
 *     100,000-job decision stays a readable message). Default 500
 * @param maxViewLag a request made on a ledger version the view has not folded yet waits for it
 *     at most this long, then is answered on the view as it is (saying so). Default 1 min
 * @param maxInputLead an input timed more than this after the clock is refused. Default 1 day
 *     ({@code Inbox.MAX_INPUT_LEAD}, the same for every kernel)
 * @param mode PLANNER (the rules), NAIVE (the twin's priority-only baseline) or NONE (refuse all)
 */
public record PreemptionPolicy(String cluster, PreemptionConfig rules, PlacementConfig placement,
    Duration assumedWait, double reservationValueHours, LocalTime offPeakStart,
    int traceCandidatesMax, Duration maxViewLag, Duration maxInputLead, Mode mode) {

  /** How victims are chosen. */
  public enum Mode {
    /** The preemption rules (W4, P1–P6) with placement's placer as the feasibility probe. */
    PLANNER,
    /**
     * Kubernetes-style priority preemption (the twin's baseline): strictly lower static priority,
     * lowest then newest first, the shortest feasible prefix; no protection, cooldown, threshold
     * or cost; online never a victim.
     */
    NAIVE,
    /** No preemption at all. */
    NONE
  }

  public PreemptionPolicy {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(assumedWait, "assumedWait");
    Objects.requireNonNull(offPeakStart, "offPeakStart");
    Objects.requireNonNull(maxViewLag, "maxViewLag");
    Objects.requireNonNull(maxInputLead, "maxInputLead");
    Objects.requireNonNull(mode, "mode");
    if (traceCandidatesMax < 1) {
      throw new IllegalArgumentException("traceCandidatesMax must be at least 1");
    }
  }

  /** The documented defaults for {@code cluster}. */
  public static PreemptionPolicy defaults(String cluster) {
    return new PreemptionPolicy(cluster, PreemptionConfig.DEFAULTS, PlacementConfig.DEFAULTS,
        Duration.ofMinutes(30), 1.0, LocalTime.MIDNIGHT, 500, Duration.ofMinutes(1),
        io.tideline.core.kernel.Inbox.MAX_INPUT_LEAD, Mode.PLANNER);
  }

  /** This policy choosing victims another way (the twin's baselines). */
  public PreemptionPolicy withMode(Mode m) {
    return new PreemptionPolicy(cluster, rules, placement, assumedWait, reservationValueHours,
        offPeakStart, traceCandidatesMax, maxViewLag, maxInputLead, m);
  }

  /** This policy with other placement tunables (the probe must use placement's). */
  public PreemptionPolicy withPlacement(PlacementConfig p) {
    return new PreemptionPolicy(cluster, rules, p, assumedWait, reservationValueHours,
        offPeakStart, traceCandidatesMax, maxViewLag, maxInputLead, mode);
  }
}
