package io.tideline.core.placement;

/**
 * A queue's historical consumption relative to its entitlement (Q4), as input to queue order:
 * lower usage runs first so long-waiting queues gain chances and nobody hogs.
 *
 * @param usage normalised usage (e.g. decayed GPU-hours ÷ share); finite, not negative
 */
public record FairShare(double usage) {

  public FairShare {
    if (!(usage >= 0) || Double.isInfinite(usage)) {
      throw new IllegalArgumentException("usage must be finite and not negative, got " + usage);
    }
    usage = usage + 0.0; // -0.0 → 0.0, so equal usages compare equal
  }
}
